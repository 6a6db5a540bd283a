package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"
)

// docs/ci.md's recipes, run as written (issue 27): a shard fails, and
// still every report is written and the gate fails. The CI systems are
// stood in for by what their documents say they do with a step that
// fails: GitHub Actions skips the steps after it unless `if: always()`,
// GitLab ends the script at the failing line but runs after_script and
// keeps `when: always` artifacts. Where a recipe names things of the
// user's (their server, its build, wirecheck's source fetched over the
// network), the test puts its own in their place: a reference server
// with a fault, and this checkout.
var _ = Describe("the ci recipes", Ordered, func() {
	var r *recipeRun
	BeforeAll(func() {
		r = newRecipeRun()
	})

	// ciNames are the names a CI system gives the recipe's jobs and
	// artifacts; only says the gate's artifact holds the two reports
	// alone; summary is a file the gate job writes that must name the
	// failing rule ("" where the system has none).
	type ciNames struct {
		firstShard, shardArtifact, gate, gateArtifact, summary string
		only                                                   bool
	}
	DescribeTable("every shard's report kept, the merge and JUnit written, the gate failed",
		func(run func() *ciResult, n ciNames) {
			res := run()
			Expect(res.failed[n.firstShard]).To(BeTrue(), "the faulty server fails a shard: %s", res.log)
			for i := 1; i <= 4; i++ {
				Expect(res.artifacts).To(HaveKeyWithValue(fmt.Sprintf(n.shardArtifact, i), ContainElement(fmt.Sprintf("shard-%d.json", i))), res.log)
			}
			Expect(res.ran).To(ContainElement(n.gate), res.log)
			Expect(res.failed[n.gate]).To(BeTrue(), "the merge gates: %s", res.log)
			reports := ContainElements("merged.json", "conformance.xml")
			if n.only {
				reports = ConsistOf("merged.json", "conformance.xml")
			}
			Expect(res.artifacts[n.gateArtifact]).To(reports, res.log)
			r.expectReports(res.dirs[n.gate], "merged.json", "conformance.xml")
			if n.summary != "" {
				Expect(readFile(filepath.Join(res.dirs[n.gate], n.summary))).To(ContainSubstring("MCP-STDIO-1"), "the report on the job's summary page")
			}
		},
		Entry("GitHub Actions (and the summary page)", func() *ciResult {
			var doc ghWorkflow
			Expect(yaml.Unmarshal([]byte(recipe("github")), &doc)).To(Succeed())
			return r.github(doc)
		}, ciNames{firstShard: "conformance (shard 1)", shardArtifact: "shard-%d", gate: "gate", gateArtifact: "conformance", summary: "step-summary.md", only: true}),
		Entry("GitLab CI", func() *ciResult {
			var doc map[string]glJob
			Expect(yaml.Unmarshal([]byte(recipe("gitlab")), &doc)).To(Succeed())
			return r.gitlab(doc)
		}, ciNames{firstShard: "conformance 1/4", shardArtifact: "conformance %d/4", gate: "conformance-gate", gateArtifact: "conformance-gate"}),
	)

	It("GitHub Actions, checking a client: the run fails, every report kept and naming the client, the annotations name the rule", func() {
		var doc ghWorkflow
		Expect(yaml.Unmarshal([]byte(recipe("github-client")), &doc)).To(Succeed())
		res := r.github(doc)
		Expect(res.failed["client-conformance"]).To(BeTrue(), "the faulty client fails the job: %s", res.log)
		Expect(res.artifacts["client-conformance"]).To(ConsistOf("client.json", "client.xml", "client.html"), res.log)
		dir := res.dirs["client-conformance"]
		var rep struct {
			Protocol, Role string
			Client         struct{ Name string }
			Summary        struct{ Fail int }
		}
		Expect(json.Unmarshal([]byte(readFile(filepath.Join(dir, "client.json"))), &rep)).To(Succeed())
		Expect(rep.Protocol).To(Equal("mcp-client"))
		Expect(rep.Role).To(Equal("client"))
		Expect(rep.Client.Name).To(Equal("wirecheck-reference-client"))
		Expect(rep.Summary.Fail).To(BeNumerically(">", 0))
		Expect(readFile(filepath.Join(dir, "client.xml"))).To(ContainSubstring("<failure"))
		Expect(readFile(filepath.Join(dir, "step-summary.md"))).To(ContainSubstring("MCP-CLIENT-LIFECYCLE-1"))
	})

	It("Kubernetes: every pod's report and reproducers on the volume, the merge written, the gate failed, a reproducer that fails", func() {
		var job k8sJob
		Expect(yaml.Unmarshal([]byte(recipe("kubernetes")), &job)).To(Succeed())
		out := filepath.Join(r.root, "out")
		Expect(os.MkdirAll(out, 0o755)).To(Succeed())
		c := job.Spec.Template.Spec.Containers[0]
		Expect(c.Command).To(Equal([]string{"sh", "-c"}))
		Expect(c.Args).To(HaveLen(1))
		// The campaign's two hours become a few sequences a pod: the fault
		// fails the first of them.
		Expect(c.Args[0]).To(ContainSubstring("--duration 2h"))
		script := r.k8s(strings.Replace(c.Args[0], "--duration 2h", "--runs 8 --shrink-time 1s", 1))
		for i := 0; i < job.Spec.Completions; i++ {
			code, log := r.sh(r.root, r.podPath(), []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, "sh", "-c", script)
			Expect(code).To(Equal(0), "a pod ends 0 whatever it found: %s", log)
			Expect(filepath.Join(out, fmt.Sprintf("fuzz-%d.json", i))).To(BeARegularFile(), log)
		}
		repros, _ := filepath.Glob(filepath.Join(out, "repro-*", "*.yaml"))
		Expect(repros).NotTo(BeEmpty())

		gate := filepath.Join(r.root, "k8s-gate")
		Expect(os.MkdirAll(gate, 0o755)).To(Succeed())
		code, log := r.sh(gate, r.podPath(), nil, "sh", "-e", "-c", r.k8s(recipe("kubernetes-gate")))
		Expect(code).To(Equal(1), "the merge gates: %s", log)
		r.expectReports(gate, "merged.json", "conformance.xml")

		code, log = r.sh(gate, r.podPath(), nil, "sh", "-e", "-c", r.k8s(recipe("kubernetes-replay")))
		Expect(code).To(Equal(1), "a reproducer fails as it did: %s", log)
	})
})

// recipe is the body of docs/ci.md's block whose info string is
// "… ci-recipe NAME".
func recipe(name string) string {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	Expect(err).NotTo(HaveOccurred())
	re := regexp.MustCompile("(?ms)^```\\w+ ci-recipe " + regexp.QuoteMeta(name) + "\n(.*?)^```\n")
	m := re.FindStringSubmatch(string(data))
	Expect(m).NotTo(BeNil(), "docs/ci.md has no block ```… ci-recipe %s", name)
	return m[1]
}

func readFile(p string) string {
	data, err := os.ReadFile(p)
	Expect(err).NotTo(HaveOccurred())
	return string(data)
}

// recipeRun is what the recipes run against: a faulty server, this
// checkout as wirecheck's source, a GOPATH of their own.
type recipeRun struct {
	root, repo, server, client, gopath, basePath, podBin string
}

func newRecipeRun() *recipeRun {
	root := GinkgoT().TempDir()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	r := &recipeRun{root: root, repo: repo, server: filepath.Join(root, "server"), gopath: filepath.Join(root, "gopath")}
	// MCP-STDIO-1 fails in every lane and every fuzz sequence: each shard fails.
	Expect(os.WriteFile(r.server, []byte("#!/bin/sh\nexec '"+bin()+"' serve mcp --fault stdout-text\n"), 0o755)).To(Succeed())
	// The client recipe's client: --mcp-server CMD --list-tools, and it
	// sends tools/list before initialize.
	r.client = filepath.Join(root, "client")
	Expect(os.WriteFile(r.client, []byte("#!/bin/sh\n[ \"$1\" = --mcp-server ] || exit 9\nexec '"+bin()+"' serve mcp --role client --fault list-first -- \"$2\"\n"), 0o755)).To(Succeed())
	// PATH without any wirecheck: the recipes must install it.
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "wirecheck")); err != nil {
			dirs = append(dirs, d)
		}
	}
	r.basePath = strings.Join(dirs, string(os.PathListSeparator))
	// A Kubernetes image has wirecheck installed: the binary under test.
	r.podBin = filepath.Join(root, "image-bin")
	Expect(os.MkdirAll(r.podBin, 0o755)).To(Succeed())
	Expect(os.Symlink(bin(), filepath.Join(r.podBin, "wirecheck"))).To(Succeed())
	return r
}

func (r *recipeRun) podPath() string {
	return r.podBin + string(os.PathListSeparator) + r.basePath
}

// k8s puts the test's volume and server where the recipe names the pod's.
func (r *recipeRun) k8s(s string) string {
	s = strings.ReplaceAll(s, "/app/server", r.server)
	return strings.ReplaceAll(s, "/out", filepath.Join(r.root, "out"))
}

// sh runs a command as a CI job's shell does and returns its exit code
// and output. The install the recipes run goes into a GOPATH of the
// test's, with the module cache the machine already has.
func (r *recipeRun) sh(dir, path string, env []string, name string, args ...string) (int, string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	Expect(err).NotTo(HaveOccurred())
	cmd.Env = append(os.Environ(), "PATH="+path, "GOPATH="+r.gopath, "GOMODCACHE="+strings.TrimSpace(string(modcache)), "GOBIN=", "GOFLAGS=-mod=readonly")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	Expect(err).NotTo(HaveOccurred())
	return 0, string(out)
}

// workspace is a job's fresh checkout of the user's repository: their
// server is built by isYourBuild's step.
func (r *recipeRun) workspace(name string) string {
	dir := filepath.Join(r.root, "jobs", strings.NewReplacer(" ", "-", "/", "-", "(", "", ")", "").Replace(name))
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	return dir
}

// isYourBuild is the step that builds the user's server: `make build   #
// your server` (the comment is YAML's, not the step's).
func isYourBuild(step string) bool { return strings.TrimSpace(step) == "make build" }

// yourServer stands in for the user's build of their server.
func (r *recipeRun) yourServer(dir string) string {
	return "mkdir -p bin && ln -sf '" + r.server + "' bin/server && ln -sf '" + r.client + "' bin/client"
}

// expectReports checks the reports a gate writes: a merged JSON report
// with the failure, and JUnit with it as a failure.
func (r *recipeRun) expectReports(dir string, merged, junit string) {
	var rep struct {
		Summary struct{ Fail int } `json:"summary"`
	}
	Expect(json.Unmarshal([]byte(readFile(filepath.Join(dir, merged))), &rep)).To(Succeed())
	Expect(rep.Summary.Fail).To(BeNumerically(">", 0))
	Expect(readFile(filepath.Join(dir, junit))).To(ContainSubstring("<failure"))
}

// ciResult is what a pipeline did.
type ciResult struct {
	ran       []string
	failed    map[string]bool
	artifacts map[string][]string // artifact (or job) → file names
	dirs      map[string]string   // job → workspace
	log       string
}

func newResult() *ciResult {
	return &ciResult{failed: map[string]bool{}, artifacts: map[string][]string{}, dirs: map[string]string{}}
}

// --- GitHub Actions ---

type ghWorkflow struct {
	Jobs map[string]ghJob `yaml:"jobs"`
}

type ghJob struct {
	Needs    string `yaml:"needs"`
	If       string `yaml:"if"`
	Strategy struct {
		Matrix map[string][]string `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ghStep `yaml:"steps"`
}

type ghStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
}

func (r *recipeRun) github(wf ghWorkflow) *ciResult {
	res := newResult()
	store := filepath.Join(r.root, "gh-artifacts")
	var names []string
	for name, job := range wf.Jobs {
		if job.Needs == "" {
			names = append([]string{name}, names...)
		} else {
			names = append(names, name)
		}
	}
	for _, name := range names {
		job := wf.Jobs[name]
		if job.Needs != "" && !strings.Contains(job.If, "always()") && anyFailed(res, job.Needs) {
			continue
		}
		// One run per value of the matrix's one key (or one run).
		type inst struct{ label, key, value string }
		insts := []inst{{label: name}}
		for key, values := range job.Strategy.Matrix {
			insts = nil
			for _, v := range values {
				insts = append(insts, inst{fmt.Sprintf("%s (%s %s)", name, key, v), key, v})
			}
		}
		for _, in := range insts {
			dir := r.workspace("gh " + in.label)
			res.ran, res.dirs[in.label] = append(res.ran, in.label), dir
			ghPath, summary := filepath.Join(dir, "github-path"), filepath.Join(dir, "step-summary.md")
			expand := func(s string) string { return strings.ReplaceAll(s, "${{ matrix."+in.key+" }}", in.value) }
			failed := false
			for _, st := range job.Steps {
				if failed && !strings.Contains(st.If, "always()") {
					continue
				}
				switch {
				case strings.HasPrefix(st.Uses, "actions/checkout@"):
					if p := st.With["path"]; st.With["repository"] == "wirecheck/wirecheck" {
						Expect(os.Symlink(r.repo, filepath.Join(dir, p))).To(Succeed())
					}
				case strings.HasPrefix(st.Uses, "actions/setup-go@"):
				case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
					a := expand(st.With["name"])
					for _, p := range strings.Fields(expand(st.With["path"])) {
						matches, _ := filepath.Glob(filepath.Join(dir, p))
						for _, m := range matches {
							Expect(os.MkdirAll(filepath.Join(store, a), 0o755)).To(Succeed())
							Expect(os.WriteFile(filepath.Join(store, a, filepath.Base(m)), []byte(readFile(m)), 0o644)).To(Succeed())
							res.artifacts[a] = append(res.artifacts[a], filepath.Base(m))
						}
					}
				case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
					Expect(st.With["merge-multiple"]).To(Equal("true"))
					arts, _ := filepath.Glob(filepath.Join(store, st.With["pattern"], "*"))
					for _, a := range arts {
						Expect(os.WriteFile(filepath.Join(dir, filepath.Base(a)), []byte(readFile(a)), 0o644)).To(Succeed())
					}
				case st.Uses != "":
					Fail("a step the test does not stand in for: " + st.Uses)
				case isYourBuild(st.Run):
					code, out := r.sh(dir, r.basePath, nil, "bash", "-c", r.yourServer(dir))
					Expect(code).To(Equal(0), out)
				default:
					// As GitHub runs a step: bash -e -o pipefail, the folders
					// earlier steps added to $GITHUB_PATH first on PATH.
					path := r.basePath
					if data, err := os.ReadFile(ghPath); err == nil {
						for _, l := range strings.Fields(string(data)) {
							path = l + string(os.PathListSeparator) + path
						}
					}
					code, out := r.sh(dir, path, []string{"GITHUB_PATH=" + ghPath, "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_ACTIONS=true"},
						"bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", expand(st.Run))
					res.log += fmt.Sprintf("\n[%s] $ %s\nexit %d\n%s", in.label, expand(st.Run), code, tail(out))
					if code != 0 {
						failed = true
					}
				}
			}
			res.failed[in.label] = failed
		}
	}
	for a := range res.artifacts {
		sort.Strings(res.artifacts[a])
	}
	return res
}

func anyFailed(res *ciResult, job string) bool {
	for label, f := range res.failed {
		if f && (label == job || strings.HasPrefix(label, job+" ")) {
			return true
		}
	}
	return false
}

// tail is the end of a step's output, for a failure's message.
func tail(s string) string {
	if len(s) > 1500 {
		return "…" + s[len(s)-1500:]
	}
	return s
}

// --- GitLab CI ---

type glJob struct {
	Parallel     int      `yaml:"parallel"`
	Needs        []string `yaml:"needs"`
	When         string   `yaml:"when"`
	BeforeScript []string `yaml:"before_script"`
	Script       []string `yaml:"script"`
	AfterScript  []string `yaml:"after_script"`
	Artifacts    struct {
		When    string   `yaml:"when"`
		Paths   []string `yaml:"paths"`
		Reports struct {
			Junit string `yaml:"junit"`
		} `yaml:"reports"`
	} `yaml:"artifacts"`
}

// gitClone is a clone of wirecheck's source; its last word is the folder.
var gitClone = regexp.MustCompile(`^git clone .*/wirecheck(\.git)? (\S+)$`)

func (r *recipeRun) gitlab(doc map[string]glJob) *ciResult {
	res := newResult()
	var names []string
	for name, job := range doc {
		if len(job.Needs) == 0 {
			names = append([]string{name}, names...)
		} else {
			names = append(names, name)
		}
	}
	kept := map[string]string{} // job label → the folder its artifacts were kept in
	for _, name := range names {
		job := doc[name]
		needFailed := false
		for _, n := range job.Needs {
			needFailed = needFailed || anyFailed(res, n)
		}
		if needFailed && job.When != "always" {
			continue
		}
		n := max(job.Parallel, 1)
		for i := 1; i <= n; i++ {
			label := name
			env := []string{"GITLAB_CI=true"}
			if job.Parallel > 0 {
				label = fmt.Sprintf("%s %d/%d", name, i, n)
				env = append(env, fmt.Sprintf("CI_NODE_INDEX=%d", i), fmt.Sprintf("CI_NODE_TOTAL=%d", n))
			}
			dir := r.workspace("gl " + label)
			res.ran, res.dirs[label] = append(res.ran, label), dir
			// A job gets the artifacts of the jobs it needs.
			for from, src := range kept {
				for _, need := range job.Needs {
					if from == need || strings.HasPrefix(from, need+" ") {
						files, _ := filepath.Glob(filepath.Join(src, "*"))
						for _, f := range files {
							Expect(os.WriteFile(filepath.Join(dir, filepath.Base(f)), []byte(readFile(f)), 0o644)).To(Succeed())
						}
					}
				}
			}
			// before_script and script: one shell, ended by the first
			// failing line, as the runner's `set -eo pipefail` does.
			lines := append(append([]string{}, job.BeforeScript...), job.Script...)
			code, out := r.sh(dir, r.basePath, env, "bash", "-eo", "pipefail", "-c", r.gitlabLines(dir, lines))
			res.log += fmt.Sprintf("\n[%s] script\nexit %d\n%s", label, code, tail(out))
			res.failed[label] = code != 0
			if len(job.AfterScript) > 0 {
				// A shell of its own, whatever the script's exit code; its
				// own exit code fails nothing.
				code, out := r.sh(dir, r.basePath, env, "bash", "-eo", "pipefail", "-c", r.gitlabLines(dir, job.AfterScript))
				res.log += fmt.Sprintf("\n[%s] after_script\nexit %d\n%s", label, code, tail(out))
			}
			if code == 0 || job.Artifacts.When == "always" {
				keep := filepath.Join(r.root, "gl-artifacts", strings.NewReplacer(" ", "-", "/", "-").Replace(label))
				Expect(os.MkdirAll(keep, 0o755)).To(Succeed())
				paths := job.Artifacts.Paths
				if j := job.Artifacts.Reports.Junit; j != "" && !slices.Contains(paths, j) {
					paths = append(paths, j)
				}
				for _, p := range paths {
					matches, _ := filepath.Glob(filepath.Join(dir, p))
					for _, m := range matches {
						Expect(os.WriteFile(filepath.Join(keep, filepath.Base(m)), []byte(readFile(m)), 0o644)).To(Succeed())
						res.artifacts[label] = append(res.artifacts[label], filepath.Base(m))
					}
				}
				kept[label] = keep
			}
		}
	}
	return res
}

// gitlabLines is a job's lines as a script, the user's things replaced:
// wirecheck's source is this checkout, their server the faulty one.
func (r *recipeRun) gitlabLines(dir string, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		switch {
		case gitClone.MatchString(l):
			l = "ln -s '" + r.repo + "' " + gitClone.FindStringSubmatch(l)[2]
		case isYourBuild(l):
			l = r.yourServer(dir)
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// --- Kubernetes ---

type k8sJob struct {
	Spec struct {
		Completions int `yaml:"completions"`
		Template    struct {
			Spec struct {
				Containers []struct {
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}
