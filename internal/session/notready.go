package session

import (
	"cmp"
	"errors"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// NotReady is the block a report shows instead of the table of rules
// nobody could judge when err says the run never began (nil when it does
// not say so): the evidence of the *NotStarted, what p's ready line is,
// command (the target's line), within (the startup timeout), code (the
// exit code it ends with) and what rep recorded (report.NotReady.Explain).
func NotReady(err error, rep *report.Report, p *spec.Protocol, command string, within time.Duration, code int) *report.NotReady {
	ns := (*NotStarted)(nil)
	if !errors.As(err, &ns) {
		return nil
	}
	ready := cmp.Or(p.Startup, &spec.Startup{})
	n := &report.NotReady{Command: command, Code: code, Within: within, Flag: "--startup-timeout",
		Cause: ns.Cause, Launched: ns.Launched, Stderr: ns.Stderr, Client: ns.Client}
	n = n.Explain(rep, ready.Kind, ready.Rule)
	n.Hint = cmp.Or(ns.Hint, n.Hint)
	switch {
	case ns.URL != "":
		// Nothing was launched, and the wait was the connection's own.
		n.URL, n.Command, n.Check = ns.URL, "", ns.Check
		n.Awaited, n.Within, n.Flag = ns.Awaited, ns.Within, ns.Flag
	case ns.Awaited != "":
		n.Awaited, n.Within, n.Flag = ns.Awaited, cmp.Or(ns.Within, within), cmp.Or(ns.Flag, "--startup-timeout")
	}
	return n
}
