package runner_test

import (
	"context"
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
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// suiteRun runs a protocol's whole suite against its reference server at
// the default timeouts.
func suiteRun(id string, jobs int) *report.Report {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load(id)
	Expect(err).NotTo(HaveOccurred())
	argv := []string{bin, "serve", id}
	rep, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: b.Scenarios, Handler: b.Handler,
		Launch: func() (transport.Transport, error) { return transport.Launch(transport.Options{Command: argv}) },
		Jobs:   jobs,
	})
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

var _ = Describe("under load", func() {
	It("gives every reference suite the same verdicts at the default --jobs on busy cores as alone at --jobs 1", func() {
		format.MaxLength = 0
		ids := protocols.IDs()
		quiet := map[string][]row{}
		for _, id := range ids {
			quiet[id] = rows(suiteRun(id, 1))
			Expect(quiet[id]).NotTo(BeEmpty())
		}
		stop := load(90 * time.Second)
		defer stop()
		busy := map[string][]row{}
		for _, id := range ids {
			busy[id] = rows(suiteRun(id, 0))
		}
		stop()
		for _, id := range ids {
			Expect(busy[id]).To(ConsistOf(quiet[id]), "protocol %s", id)
		}
	})
})
