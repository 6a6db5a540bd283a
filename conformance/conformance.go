package conformance

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/certify"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Options say which suite runs against which server, as the flags of
// `wirecheck run` do. Exactly one of Command, URL, Serve and Handler
// names the server.
type Options struct {
	// Protocol is the suite: "mcp", "sonde-serve", … (`wirecheck protocols`).
	Protocol string
	// Role is what the target is: "server" (the default) or "client", as
	// run --role client: wirecheck plays the server, and Command is the
	// client's, with {server} where it takes its server's command (on
	// stdio: an executable that runs this test binary to relay, see the
	// package doc) or, with Transport "http" or "sse", {url} where it
	// takes its URL.
	Role string
	// Revision of a protocol with revisions ("" for its default; "all"
	// runs the suite in each, side by side, as run --revision all does).
	Revision string
	// Params are KEY=VALUE settings of the protocol's scenarios (--param).
	Params []string

	// Command launches the server (argv; Command[0] is looked up in PATH),
	// with Env (KEY=VALUE) and Dir. With Transport "http" or "sse" it is
	// launched on a free port written {port} in its arguments.
	Command   []string
	Env       []string
	Dir       string
	Transport string
	// URL is a running server over HTTP; Headers go with every request
	// ("Name: value", ${VAR} read from the environment).
	URL     string
	Headers []string
	// Serve is a stdio server in this process: it reads requests from in
	// and writes its messages to out until in ends. Every lane of the run
	// gets a fresh call.
	Serve func(in io.Reader, out io.Writer) error
	// Handler is an HTTP server in this process, served on a loopback
	// port for the whole run at Path (default the protocol's endpoint,
	// /mcp), over Transport (default "http"). At the end of the run its
	// connections are closed; calls that have not returned a second
	// later are left running and reported (HungError).
	Handler http.Handler
	Path    string

	// Level is what fails the test: "must" (default), "should" or "may".
	Level string
	// Rules and Scenarios select by glob, as --rules and --scenario.
	Rules, Scenarios []string
	// Baseline is a file of known failures (--baseline); Strict fails on
	// an entry that no longer fails (--baseline-strict).
	Baseline string
	Strict   bool
	// Reports are FORMAT=PATH outputs, as --report (json, junit, html,
	// markdown, console).
	Reports []string
	// Timeout bounds each response, StartupTimeout the server's start
	// (defaults 5s and 10s); Jobs the server processes at once.
	Timeout, StartupTimeout time.Duration
	Jobs                    int
}

// Run runs the suite and reports every rule as a subtest of t (when t is
// a *testing.T; otherwise each rule's verdict goes to t directly). It
// returns the run's findings, one per rule and scenario, for a test that
// wants to look further. A setup that cannot run (an unknown protocol, a
// server that never starts) fails t at once.
//
// A Handler still running once the run is over and its connections are
// closed fails t too (see Check).
func Run(t testing.TB, o Options) []Finding {
	t.Helper()
	rep, err := run(o)
	if rep == nil {
		t.Fatalf("wirecheck conformance (%s): %v", o.Protocol, err)
		return nil
	}
	judge(t, rep, rep.Level)
	if err != nil {
		t.Errorf("wirecheck conformance (%s): %v", o.Protocol, err)
	}
	return findings(rep)
}

// Check runs the suite outside a test and returns its findings, one per
// rule and scenario, for a program that judges them itself. Its error is
// a setup that cannot run or a server that never started; or, with the
// findings of a run that ended, a *HungError: a Handler whose calls had
// not returned when the run was over.
func Check(o Options) ([]Finding, error) {
	rep, err := run(o)
	if rep == nil {
		return nil, err
	}
	return findings(rep), err
}

// HungError is a Handler that had calls still running handlerGrace after
// the run closed their connections. A goroutine cannot be stopped from
// outside, so they are left running: the process keeps their goroutines
// (and what they hold) until they return, which may be never. The run
// itself has ended.
type HungError struct {
	// Calls is how many calls of the Handler were still running.
	Calls int
	// Grace is how long wirecheck waited for them.
	Grace time.Duration
}

func (e *HungError) Error() string {
	return fmt.Sprintf("the Handler hung: %d call(s) still running %v after the run closed their connections (left running: a goroutine cannot be stopped)", e.Calls, e.Grace)
}

// handlerGrace is how long the end of a run waits for a Handler's calls
// to return once their connections are closed (their request contexts
// done, their writes failing), as a launched server's Close waits after
// SIGTERM before it kills.
const handlerGrace = time.Second

// run runs the suite as `wirecheck run` does and writes the reports. A
// report comes with no error but a *HungError (the run ended, its
// Handler did not); any other error comes without one.
func run(o Options) (rep *report.Report, err error) {
	o.Level = cmp.Or(o.Level, "must")
	o.Timeout = cmp.Or(o.Timeout, runner.DefaultTimeout)
	o.StartupTimeout = cmp.Or(o.StartupTimeout, runner.DefaultStartupTimeout)
	b, err := protocols.PickRole(o.Protocol, o.Role)
	if err != nil {
		return nil, err
	}
	level, outs, err := report.ParseJudging(o.Level, o.Reports)
	if err != nil {
		return nil, err
	}
	st, err := b.Settings(o.Revision, o.Params, "")
	if err != nil {
		return nil, err
	}
	t, stop, err := reach(b, o)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, stop()) }()
	// A launched server's findings carry the CLI line that reruns them;
	// one in this process can only be rerun by its test (judge says how).
	var rerun *target.Rerun
	if t.Serve == nil && o.Handler == nil {
		rerun = new(runner.Rerun(target.Rerun{Command: "run", Protocol: o.Protocol, Timeout: o.Timeout, Startup: o.StartupTimeout,
			Level: string(level), Params: st.Rest, Revision: st.Revision}))
	}
	plan, err := certify.Prepare(certify.Request{Bundle: b, Params: st.Params, Target: t,
		Scenarios: o.Scenarios, Rules: o.Rules, Baseline: o.Baseline, Strict: o.Strict, Seed: 1,
		Jobs: cmp.Or(o.Jobs, runner.DefaultJobs), Timeout: o.Timeout, StartupTimeout: o.StartupTimeout, Rerun: rerun,
		Revisions: st.All})
	if err != nil {
		return nil, err
	}
	rep, runErr := plan.Run(context.Background(), nil)
	rep.Level = level
	var console bytes.Buffer
	nr := session.NotReady(runErr, rep, st.Protocol, t.String(), o.StartupTimeout, report.ExitNoTarget)
	if err := (report.Sink{Stdout: &console, Stderr: &console, Outputs: outs, NoColor: true}).Write(rep, nr); err != nil {
		return nil, err
	}
	if nr != nil || runErr != nil {
		return nil, fmt.Errorf("%v\n%s", runErr, console.String())
	}
	return rep, nil
}

// reach is the Target o names, and what ends it (the loopback server of
// a Handler; a *HungError when that leaves calls running).
func reach(b *protocols.Bundle, o Options) (target.Target, func() error, error) {
	named := 0
	for _, set := range []bool{len(o.Command) > 0, o.URL != "", o.Serve != nil, o.Handler != nil} {
		if set {
			named++
		}
	}
	if named != 1 {
		return target.Target{}, nil, fmt.Errorf("name the server once: Command, URL, Serve or Handler (%d given)", named)
	}
	t := target.Target{Argv: o.Command, Env: o.Env, Cwd: o.Dir, Transport: o.Transport, URL: o.URL, Headers: o.Headers, Paths: b.Protocol.Endpoints}
	stop := func() error { return nil }
	if o.Role == protocols.RoleClient {
		if len(o.Command) == 0 {
			return t, nil, errors.New("role client: give the client's Command, with {server} (or {url} over HTTP) where it takes its server")
		}
		// The stdio endpoint execs this binary to connect back: the
		// package's init relays (connectback.go).
		exe, err := os.Executable()
		if err != nil {
			return t, nil, fmt.Errorf("role client: cannot find this program's executable to connect back with: %w", err)
		}
		t.Client, t.Binary = true, exe
	}
	switch {
	case o.Serve != nil:
		t.Serve = o.Serve
	case o.Handler != nil:
		url, end, err := loopback(o.Handler, handlerGrace)
		if err != nil {
			return t, nil, err
		}
		stop = end
		if t.Transport == "" {
			t.Transport = "http"
		}
		path := o.Path
		if path == "" {
			path = b.Protocol.Endpoint(t.Transport)
		}
		t.URL = url + path
	}
	reach := protocols.Reach{URL: t.URL, Transport: t.Transport, Headers: t.Headers}
	if err := reach.Check(b); err != nil {
		stop()
		return t, nil, err
	}
	t.Transport = reach.Default(b)
	if err := t.Check(); err != nil {
		stop()
		return t, nil, err
	}
	t.Transport = t.Kind()
	return t, stop, nil
}

// tRunner is a *testing.T: what can run subtests.
type tRunner interface {
	Run(name string, f func(t *testing.T)) bool
}

// judge reports each rule of rep on t: a subtest per rule where t can
// run them.
func judge(t testing.TB, rep *report.Report, level verdict.Level) {
	t.Helper()
	for _, g := range rep.ByRule() {
		if tr, ok := t.(tRunner); ok {
			tr.Run(g.Rule.ID, func(st *testing.T) { judgeRule(st, g, level, true) })
		} else {
			judgeRule(t, g, level, false)
		}
	}
	for _, n := range rep.Notes {
		t.Log(n)
	}
	if code, err := rep.Exit(level, nil); code == report.ExitViolations && err != nil && err.Error() != "" {
		t.Error(err)
	}
}

// judgeRule fails, skips or passes one rule; alone says t is the rule's
// own subtest (so a skip may end it).
func judgeRule(t testing.TB, g report.RuleGroup, level verdict.Level, alone bool) {
	t.Helper()
	v := report.RuleVerdict(g.Findings)
	head := fmt.Sprintf("%s (%s) %s", g.Rule.ID, g.Rule.Level, g.Rule.Title)
	switch {
	case v == verdict.Skip:
		why := ""
		if len(g.Findings) > 0 {
			why = g.Findings[0].Message
		}
		if alone {
			t.Skipf("%s: skipped: %s", head, why)
		}
		t.Logf("%s: skipped: %s", head, why)
	case v == verdict.Pass:
		if alone {
			t.Logf("%s: pass", head)
		}
	default:
		for _, f := range g.Findings {
			if f.Verdict != verdict.Fail && f.Verdict != verdict.Error {
				continue
			}
			msg := evidence(head, f, t.Name())
			if f.Known || f.Level.Rank() < level.Rank() {
				t.Logf("%s", msg)
			} else {
				t.Errorf("%s", msg)
			}
		}
	}
}

// evidence is one failure as rapid prints one: what broke, Expected and
// Actual, the exchange, and the one command that reproduces it.
func evidence(head string, f report.Finding, test string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  %s in scenario %s: %s", head, f.Verdict, f.Where(), f.Said())
	if f.Known {
		b.WriteString(" (known: in the baseline)")
	}
	fmt.Fprintf(&b, "\n  Expected: %s\n  Actual:   %s\n", f.Expected, f.Actual)
	if len(f.Transcript) > 0 {
		b.WriteString("  Transcript:\n")
		for _, e := range f.Transcript {
			fmt.Fprintf(&b, "    %9.1fms %-6s %s\n", e.OffsetMS, e.Dir, e.Text)
		}
	}
	rerun := f.Reproduce
	if rerun == "" {
		rerun = fmt.Sprintf("go test -run '^%s$'", test)
	}
	fmt.Fprintf(&b, "  Reproduce: %s", rerun)
	return b.String()
}

// Finding is one rule's verdict in one scenario.
type Finding struct {
	Rule, Level, Verdict, Scenario string
	Message, Expected, Actual      string
	// Revision is the protocol revision the finding was judged by, with
	// Options.Revision "all" (one run in each); "" otherwise.
	Revision string
	// Reproduce is the command line that reruns it ("" for a server in
	// this process: its test reruns it).
	Reproduce string
	Known     bool
	// Cause is the rule whose failure in the same scenario this failure
	// follows from (a spec's consequence-of); "" for an independent one.
	Cause string
}

func findings(rep *report.Report) []Finding {
	out := make([]Finding, 0, len(rep.Findings))
	for _, f := range rep.Findings {
		out = append(out, Finding{Rule: f.Rule, Level: string(f.Level), Verdict: string(f.Verdict), Scenario: f.Scenario,
			Message: f.Message, Expected: f.Expected, Actual: f.Actual, Reproduce: f.Reproduce, Known: f.Known,
			Revision: f.Revision, Cause: f.Cause})
	}
	return out
}

// Reference is the built-in reference server of a protocol as a Serve
// function, with faults (spec faults:, `wirecheck serve P --fault list`)
// and variants switched on.
func Reference(protocol string, faults, variants []string) func(in io.Reader, out io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		b, err := protocols.Load(protocol)
		if err != nil {
			return err
		}
		code := b.Serve(refserver.Options{Faults: faults, Variants: variants, In: in, Out: out, Log: io.Discard})
		if code != 0 {
			return fmt.Errorf("reference server %s exited %d", protocol, code)
		}
		return nil
	}
}
