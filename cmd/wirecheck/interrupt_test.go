package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A CI job's timeout sends SIGTERM: wirecheck ends its servers (their
// stdin closed, their group signalled), and a server that then exits as
// it should must not be failed for it, nor anything after the signal.
var _ = Describe("a run a signal interrupts", func() {
	// launches is a server command that appends each process's id (its
	// group's, as wirecheck makes it the leader) to a file, so the test
	// knows when the run is under way and can look for leftovers; the
	// launches from the hold-th on never become ready (exec sleep), so the
	// run cannot finish before the signal comes.
	launches := func(pids string, hold int, server ...string) []string {
		script := `n=$(wc -l < "$0"); echo $$ >> "$0"; if [ "$n" -ge ` + strconv.Itoa(hold) + ` ]; then exec sleep 600; fi; exec "$@"`
		return append([]string{"sh", "-c", script, pids}, server...)
	}

	type tc struct {
		protocol string
		flags    []string
		// hold: see launches (0: none held; the flags keep the run going);
		// launched: how many processes to see launched before the signal.
		hold, launched int
	}
	DescribeTable("exits 143, marks every report interrupted, fails nothing and leaves no process",
		func(c tc) {
			dir := GinkgoT().TempDir()
			pids := filepath.Join(dir, "pids")
			Expect(os.WriteFile(pids, nil, 0o644)).To(Succeed())
			hold := c.hold
			if hold == 0 {
				hold = 1 << 20
			}
			args := append([]string{"run", "--protocol", c.protocol, "--no-color",
				"--report", "json=" + dir + "/r.json", "--report", "junit=" + dir + "/r.xml",
				"--report", "markdown=" + dir + "/r.md", "--report", "html=" + dir + "/r.html"}, c.flags...)
			args = append(append(args, "--"), launches(pids, hold, bin(), "serve", c.protocol)...)
			cmd := exec.Command(bin(), args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			Expect(cmd.Start()).To(Succeed())
			// Processes launched: the run is under way.
			Eventually(func() int {
				b, _ := os.ReadFile(pids)
				return strings.Count(string(b), "\n")
			}, time.Minute, 20*time.Millisecond).Should(BeNumerically(">=", c.launched))
			Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
			err := cmd.Wait()
			var ee *exec.ExitError
			Expect(errors.As(err, &ee)).To(BeTrue(), out.String())
			Expect(ee.ExitCode()).To(Equal(report.ExitSIGTERM), out.String())
			Expect(out.String()).To(ContainSubstring("INTERRUPTED by SIGTERM"))
			Expect(out.String()).To(ContainSubstring("wirecheck: interrupted by SIGTERM"))

			By("a JSON report that says so and validates against the report schema")
			rep := readReport(filepath.Join(dir, "r.json"))
			Expect(rep.Interrupted).To(BeTrue())
			Expect(rep.Signal).To(Equal("SIGTERM"))

			By("nothing blamed: the reference server breaks no rule, so no finding fails or errs")
			for _, fd := range rep.Findings {
				Expect(fd.Verdict).To(BeElementOf(verdict.Pass, verdict.Skip), "%s in %s: %s", fd.Rule, fd.Scenario, fd.Message)
			}

			By("the other reports say it plainly")
			junit, _ := os.ReadFile(filepath.Join(dir, "r.xml"))
			Expect(string(junit)).To(ContainSubstring(`<property name="interrupted" value="SIGTERM">`))
			Expect(string(junit)).To(ContainSubstring(`name="run interrupted"`))
			md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
			Expect(string(md)).To(ContainSubstring("**INTERRUPTED** by SIGTERM"))
			html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
			Expect(string(html)).To(ContainSubstring(`overall INTERRUPTED`))

			By("no server process left behind")
			b, _ := os.ReadFile(pids)
			for _, l := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(l)
				Expect(err).NotTo(HaveOccurred())
				Expect(syscall.Kill(-pid, 0)).To(MatchError(syscall.ESRCH), "process group %d", pid)
			}
		},
		// The backend's and wirecheck's callback timeouts far off: the
		// scenario that waits for CALLBACK_TIMEOUT is under way when the
		// signal comes (the run of issue 25).
		Entry("agent-bridge, a callback wait under way", tc{protocol: "agent-bridge",
			launched: 2, flags: []string{"--env", "WIRECHECK_AGENT_BRIDGE_CALLBACK_TIMEOUT=10m", "--param", "callback_timeout=10m"}}),
		Entry("sonde-serve, a third process still starting", tc{protocol: "sonde-serve", hold: 2, launched: 3,
			flags: []string{"--startup-timeout", "10m"}}),
	)

	It("ends a replay the same way: the answer it was waiting for is not held against the server", func() {
		dir := GinkgoT().TempDir()
		file := filepath.Join(dir, "r.yaml")
		Expect(os.WriteFile(file, []byte("protocol: sonde-serve\nname: waits\nrules: [SONDE-GEN-SURVIVE]\nfresh: true\nsteps:\n"+
			"  - send: {id: f1, method: tools/list}\n    as: r1\n  - expect: r1\n"), 0o644)).To(Succeed())
		pids := filepath.Join(dir, "pids")
		// Ready, then silent: the replay waits --timeout for its answer.
		// One process (exec), so none is left a zombie to its new parent.
		script := `echo $$ > "$0"; echo '` + ready + `'; exec sleep 600`
		cmd := exec.Command(bin(), "replay", file, "--timeout", "10m", "--report", "json="+dir+"/r.json", "--", "sh", "-c", script, pids)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		Expect(cmd.Start()).To(Succeed())
		Eventually(func() string { b, _ := os.ReadFile(pids); return string(b) }, time.Minute, 20*time.Millisecond).ShouldNot(BeEmpty())
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		_ = cmd.Wait()
		Expect(cmd.ProcessState.ExitCode()).To(Equal(report.ExitSIGINT), out.String())
		data, err := os.ReadFile(filepath.Join(dir, "r.json"))
		Expect(err).NotTo(HaveOccurred())
		var rep report.Report
		Expect(json.Unmarshal(data, &rep)).To(Succeed())
		Expect(rep.Interrupted).To(BeTrue())
		Expect(rep.Signal).To(Equal("SIGINT"))
		for _, fd := range rep.Findings {
			Expect(fd.Verdict).To(BeElementOf(verdict.Pass, verdict.Skip), "%s in %s: %s", fd.Rule, fd.Scenario, fd.Message)
		}
		b, _ := os.ReadFile(pids)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		Expect(err).NotTo(HaveOccurred())
		Expect(syscall.Kill(-pid, 0)).To(MatchError(syscall.ESRCH))
	})
})
