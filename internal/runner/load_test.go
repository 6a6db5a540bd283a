package runner_test

import (
	"os"
	"os/exec"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// suiteRun runs a protocol's whole suite against its reference server at
// the default timeouts.
func suiteRun(id string, jobs int) *report.Report {
	rep, err := testrun.Run(testrun.Server{Protocol: id}, runner.Config{Jobs: jobs})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// load keeps every core busy with a spinning child process until stop is
// called (each child also ends on its own after bound).
func load(bound time.Duration) (stop func()) {
	var procs []*exec.Cmd
	for range runtime.NumCPU() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), spinEnv+"="+bound.String())
		Expect(cmd.Start()).To(Succeed())
		procs = append(procs, cmd)
	}
	return func() {
		for _, c := range procs {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
}

// notPassed lists the rows that are not passes.
func notPassed(rep *report.Report) []row {
	var out []row
	for _, r := range rows(rep) {
		if r.Verdict != verdict.Pass {
			out = append(out, r)
		}
	}
	return out
}

// diff returns the rows of a not in b and those of b not in a, as
// multisets.
func diff(a, b []row) (onlyA, onlyB []row) {
	count := map[row]int{}
	for _, r := range b {
		count[r]++
	}
	for _, r := range a {
		if count[r] > 0 {
			count[r]--
			continue
		}
		onlyA = append(onlyA, r)
	}
	for r, n := range count {
		for range n {
			onlyB = append(onlyB, r)
		}
	}
	return onlyA, onlyB
}

var _ = Describe("under load", func() {
	It("gives every reference suite the same verdicts at the default --jobs on busy cores as alone at --jobs 1", func() {
		format.MaxLength = 0
		ids := protocols.IDs()
		quiet := map[string]*report.Report{}
		for _, id := range ids {
			quiet[id] = suiteRun(id, 1)
			Expect(quiet[id].Findings).NotTo(BeEmpty())
		}
		stop := load(90 * time.Second)
		defer stop()
		busy := map[string]*report.Report{}
		for _, id := range ids {
			busy[id] = suiteRun(id, 0)
		}
		stop()
		for _, id := range ids {
			// Every rule's verdict, and every row that is not a pass, is the
			// same. A pass row may differ: a frame judged on arrival (an
			// sdk.message of a turn still running when its session is
			// killed) passes in the scenario it happens to arrive in.
			Expect(testrun.Verdicts(busy[id])).To(Equal(testrun.Verdicts(quiet[id])), "protocol %s: rule verdicts", id)
			only, alone := diff(notPassed(busy[id]), notPassed(quiet[id]))
			Expect(only).To(BeEmpty(), "protocol %s: rows only under load (alone: %v)", id, alone)
			Expect(alone).To(BeEmpty(), "protocol %s: rows only alone", id)
		}
	})
})
