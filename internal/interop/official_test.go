package interop_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/interop"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the recorded findings", func() {
	It("lists each failed or errored rule of a scenario once, sorted, passes and skips not at all", func() {
		rep := &report.Report{Findings: []report.Finding{
			{Rule: "MCP-STDIO-3", Scenario: "parse-error", Verdict: verdict.Fail, Message: "one"},
			{Rule: "MCP-STDIO-3", Scenario: "parse-error", Verdict: verdict.Fail, Message: "two"},
			{Rule: "MCP-JSONRPC-9", Scenario: "jsonrpc-errors", Verdict: verdict.Error},
			{Rule: "MCP-PING-1", Scenario: "initialize", Verdict: verdict.Pass},
			{Rule: "MCP-RESOURCES-7", Scenario: "resources", Verdict: verdict.Skip},
		}}
		Expect(interop.Failures(rep)).To(Equal([]interop.Finding{
			{Rule: "MCP-JSONRPC-9", Scenario: "jsonrpc-errors", Verdict: "error"},
			{Rule: "MCP-STDIO-3", Scenario: "parse-error", Verdict: "fail"},
		}))
	})
})

var _ = Describe("the official-suite benchmark's figures", func() {
	It("counts every entry of every scenario's checks.json, by status", func() {
		dir := GinkgoT().TempDir()
		write := func(scenario, body string) {
			Expect(os.MkdirAll(filepath.Join(dir, scenario), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, scenario, "checks.json"), []byte(body), 0o644)).To(Succeed())
		}
		write("server-ping-1", `[{"id":"ping","status":"SUCCESS"}]`)
		write("server-dns-rebinding-protection-2", `[{"id":"a","status":"FAILURE"},{"id":"b","status":"SUCCESS"},{"id":"c","status":"INFO"}]`)
		c, err := interop.OfficialChecks(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Checks).To(Equal(4))
		Expect(c.Units).To(Equal(2))
		Expect(c.By).To(Equal(map[string]int{"SUCCESS": 2, "FAILURE": 1, "INFO": 1}))
	})

	It("refuses a results folder with no checks.json, so a run that wrote nothing is not counted as zero checks", func() {
		_, err := interop.OfficialChecks(GinkgoT().TempDir())
		Expect(err).To(MatchError(ContainSubstring("wrote no results")))
	})

	It("counts wirecheck's observations of pass and fail findings, a count of 0 as one, skips and errors not at all", func() {
		rep := &report.Report{Findings: []report.Finding{
			{Rule: "A", Verdict: verdict.Pass, Count: 12},
			{Rule: "B", Verdict: verdict.Fail},
			{Rule: "C", Verdict: verdict.Skip, Count: 3},
			{Rule: "D", Verdict: verdict.Error, Count: 2},
		}}
		c := interop.WirecheckChecks(rep)
		Expect(c.Checks).To(Equal(13))
		Expect(c.Units).To(Equal(2))
		Expect(c.By).To(Equal(map[string]int{"pass": 1, "fail": 1}))
	})

	It("prints each ratio against the issue's goal, met or not", func() {
		cmp := interop.Comparison{
			Official: interop.Result{Usage: interop.Usage{Wall: 60 * time.Second, CPU: 10 * time.Second, PeakRSS: 100 << 20, ServerCPU: 900 * time.Millisecond},
				Count: interop.Count{Checks: 300, Units: 100}, Processes: 17},
			Wirecheck: interop.Result{Usage: interop.Usage{Wall: 2 * time.Second, CPU: 400 * time.Millisecond, PeakRSS: 40 << 20, ServerCPU: 1600 * time.Millisecond},
				Count: interop.Count{Checks: 6000, Units: 1500}},
		}
		t := cmp.Table()
		Expect(t).To(ContainSubstring("makes 20.0x the official suite's (goal at least 10x: met)"))
		Expect(t).To(ContainSubstring("counting rule verdicts instead of observations, 5.0x"))
		Expect(t).To(ContainSubstring("spends 0.040x the official suite's (goal at most 0.05x: met)"))
		Expect(t).To(ContainSubstring("uses 0.40x the official suite's (goal at most 0.33x: NOT met)"))
		Expect(t).To(ContainSubstring("wirecheck's 2s is 1.25x the server's own CPU time during its run, 1.6s (goal at most 1.2x: NOT met)"))
		Expect(t).To(ContainSubstring("the official suite's 1m0s is 66.67x the server's 900ms"))
		Expect(t).To(ContainSubstring("17 process(es)"))
		Expect(cmp.Met()).To(BeFalse())

		cmp.Wirecheck.PeakRSS, cmp.Wirecheck.Wall = 30<<20, 1900*time.Millisecond
		t = cmp.Table()
		Expect(t).NotTo(ContainSubstring("NOT met"))
		Expect(cmp.Met()).To(BeTrue())
		cmp.Wirecheck.CPU = 600 * time.Millisecond
		Expect(cmp.Table()).To(ContainSubstring("spends 0.060x the official suite's (goal at most 0.05x: NOT met)"))
		Expect(cmp.Met()).To(BeFalse())
	})

	It("says peak RSS, CPU and the server's CPU are unknown rather than meeting a goal on a zero", func() {
		cmp := interop.Comparison{Official: interop.Result{Count: interop.Count{Checks: 1}}, Wirecheck: interop.Result{Count: interop.Count{Checks: 1}}}
		t := cmp.Table()
		Expect(t).To(ContainSubstring("peak RSS:  unknown"))
		Expect(t).To(ContainSubstring("CPU:       unknown"))
		Expect(t).To(ContainSubstring("the server's CPU time is unknown"))
	})

	It("plans one invocation per revision the suite lists, oldest first, and one per extension scenario", func() {
		plan, err := interop.PlanOfficial(`Server scenarios (test against a server):
  - server-initialize [2025-06-18,2025-11-25]
  - server-session-lifecycle [2025-03-26,2025-06-18,2025-11-25]
  - server-stateless [2026-07-28]
  - tasks-lifecycle [extension]
  - untagged
  - sep-2640-skills-directory [extension]
`)
		Expect(err).NotTo(HaveOccurred())
		Expect(plan).To(Equal(interop.OfficialPlan{
			{"server", "--suite", "all", "--spec-version", "2025-03-26"},
			{"server", "--suite", "all", "--spec-version", "2025-06-18"},
			{"server", "--suite", "all", "--spec-version", "2025-11-25"},
			{"server", "--suite", "all", "--spec-version", "2026-07-28"},
			{"server", "--scenario", "tasks-lifecycle"},
			{"server", "--scenario", "sep-2640-skills-directory"},
		}))
		revs, exts := plan.Revisions()
		Expect([]int{revs, exts}).To(Equal([]int{4, 2}))
	})

	It("refuses a list with no revision, so a changed listing is not a run of nothing", func() {
		_, err := interop.PlanOfficial("Server scenarios:\n  - a\n")
		Expect(err).To(MatchError(ContainSubstring("no server scenario with a revision")))
	})

	Context("measuring a process", func() {
		It("takes exit status 1 as a run (both tools exit 1 on failures) and reports its peak RSS", func() {
			node := pathNode()
			out := filepath.Join(GinkgoT().TempDir(), "p")
			// 100 MB filled with ones: resident, whatever the allocator does.
			u, err := interop.Measure([]string{node, "-e", "const b = Buffer.alloc(100e6, 1); process.exitCode = b[0]"}, nil, out, time.Minute)
			Expect(err).NotTo(HaveOccurred())
			Expect(u.PeakRSS).To(BeNumerically(">=", 100e6))
			Expect(u.Wall).To(BeNumerically(">", 0))
		})

		It("reports any other exit status with the end of its stderr", func() {
			out := filepath.Join(GinkgoT().TempDir(), "p")
			_, err := interop.Measure([]string{"/bin/sh", "-c", "echo no such server >&2; exit 3"}, nil, out, time.Minute)
			Expect(err).To(MatchError(And(ContainSubstring("exit status 3"), ContainSubstring("no such server"))))
		})

		It("stops a process that outlives its limit", func() {
			out := filepath.Join(GinkgoT().TempDir(), "p")
			_, err := interop.Measure([]string{"/bin/sh", "-c", "exec sleep 60"}, nil, out, 200*time.Millisecond)
			Expect(err).To(MatchError(ContainSubstring("still running after")))
		})
	})

	Context("starting a server", func() {
		It("gives it a free port in PORT and returns once the port accepts connections", func() {
			node := pathNode()
			log := filepath.Join(GinkgoT().TempDir(), "server.log")
			srv, err := interop.StartServer([]string{node, "-e", `require("http").createServer((q, s) => s.end("up")).listen(process.env.PORT, "127.0.0.1")`}, log, time.Minute)
			Expect(err).NotTo(HaveOccurred())
			defer srv.Stop()
			Expect(srv.URL).To(MatchRegexp(`^http://127\.0\.0\.1:\d+/mcp$`))
		})

		It("reads the CPU time the server has spent", func() {
			if runtime.GOOS != "linux" {
				Skip("the server's CPU time is read from /proc")
			}
			node := pathNode()
			log := filepath.Join(GinkgoT().TempDir(), "server.log")
			// It burns 300 ms of CPU before it listens, however loaded
			// the machine.
			srv, err := interop.StartServer([]string{node, "-e", `while (process.cpuUsage().user < 300000) {}
require("http").createServer((q, s) => s.end("up")).listen(process.env.PORT, "127.0.0.1")`}, log, time.Minute)
			Expect(err).NotTo(HaveOccurred())
			defer srv.Stop()
			Expect(srv.CPU()).To(BeNumerically(">=", 290*time.Millisecond))
		})

		It("counts the CPU time of the server's children too", func() {
			if runtime.GOOS != "linux" {
				Skip("the server's CPU time is read from /proc")
			}
			node := pathNode()
			log := filepath.Join(GinkgoT().TempDir(), "server.log")
			// The shell stays (the command after node keeps it from
			// exec'ing), and its child burns the CPU and listens.
			script := `while (process.cpuUsage().user < 300000) {}
require("http").createServer((q, s) => s.end("up")).listen(process.env.PORT, "127.0.0.1")`
			srv, err := interop.StartServer([]string{"/bin/sh", "-c", `"$0" -e "$1"; :`, node, script}, log, time.Minute)
			Expect(err).NotTo(HaveOccurred())
			defer srv.Stop()
			Expect(srv.CPU()).To(BeNumerically(">=", 290*time.Millisecond))
		})

		It("puts the port in place of {PORT} in its arguments, for servers that take it as a flag", func() {
			node := pathNode()
			log := filepath.Join(GinkgoT().TempDir(), "server.log")
			srv, err := interop.StartServer([]string{node, "-e", `require("http").createServer((q, s) => s.end("up")).listen(Number(process.argv[1].split(":")[1]), "127.0.0.1")`,
				"127.0.0.1:" + interop.PortWord}, log, 20*time.Second)
			Expect(err).NotTo(HaveOccurred())
			defer srv.Stop()
		})

		It("reports a server that exits before it listens, with its output", func() {
			log := filepath.Join(GinkgoT().TempDir(), "server.log")
			_, err := interop.StartServer([]string{"/bin/sh", "-c", "echo port taken; exit 1"}, log, time.Minute)
			Expect(err).To(MatchError(And(ContainSubstring("exited before it listened"), ContainSubstring("port taken"))))
		})
	})
})

// pathNode is the node on PATH, which the measuring and starting specs
// run their stand-in servers on; the spec is skipped without one.
func pathNode() string {
	node, err := exec.LookPath("node")
	if err != nil {
		Skip("node is not installed")
	}
	return node
}
