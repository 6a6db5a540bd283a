package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// NotReady is why a run checked nothing: the server could not be started,
// or never said it was ready. It is one cause, so it is said once, before
// anything else, instead of a verdict table of rules nobody could judge.
type NotReady struct {
	// Awaited is what wirecheck waited for ("its ready line: …", "the
	// process to start"); Within and Flag how long, and the flag that
	// sets it.
	Awaited string
	Within  time.Duration
	Flag    string
	Command string
	// Launched is set when the process started (and a ready line was
	// awaited in vain).
	Launched bool
	// Cause is what happened instead (no line in time, the process
	// exited with its status, the command was not found).
	Cause string
	// Stderr is the server's last stderr lines.
	Stderr []string
	// Failed is what else failed before the end ("RULE: message"): a
	// server that dies mid-line broke framing too.
	Failed []string
	// NotRun counts the scenarios that were not run (the JSON report
	// lists each of their rules as not run).
	NotRun int
	Code   int
	// Hint is what to try, when the evidence points at a usual cause.
	Hint string
	// URL, when set, is the running server (--url alone) that no
	// connection reached: the block names it instead of a command, and
	// Check says what to check.
	URL   string
	Check string
	// Client says the target is a client under test (--role client),
	// which the block names instead of a server.
	Client bool
}

// Record is n as the JSON report states it (Report.NotStarted).
func (n *NotReady) Record() *NotStarted {
	r := &NotStarted{State: "not-started", Reason: n.Cause, Awaited: n.Awaited, Check: n.Hint}
	switch {
	case n.URL != "":
		r.State, r.Check = "unreachable", n.Check
	case n.Launched:
		r.State = "not-ready"
	}
	return r
}

// bufferedHint is the usual cause of a ready line that never came from a
// server still running that wrote nothing on stdout: it did write the
// line, into its stdout buffer. C stdio and Python buffer stdout by the
// block when it is a pipe rather than a terminal, so a server that works
// by hand is silent under wirecheck until the buffer fills.
const bufferedHint = "nothing reached stdout: if the server prints its ready line, it may still sit in its stdout buffer, " +
	"since stdout is block-buffered when it is a pipe and not a terminal (C stdio, Python): flush after each line " +
	"(Python: print(..., flush=True)), or start it with PYTHONUNBUFFERED=1 (--env PYTHONUNBUFFERED=1) or under stdbuf -oL"

// stderrTail is how many of the server's last stderr lines the block shows.
const stderrTail = 10

// StartupStderr returns the last stderr lines of entries, for NotReady.
func StartupStderr(es []transcript.Entry) []string {
	var out []string
	for _, e := range es {
		if e.Dir == transcript.Stderr {
			out = append(out, e.Text)
		}
	}
	if len(out) > stderrTail {
		out = out[len(out)-stderrTail:]
	}
	return out
}

// Explain completes n, the block of a run that never began, from what the
// run recorded: what was awaited (the ready line, a frame of readyKind
// judged by readyRule, when the process started and the protocol has
// one; else the process itself, and Within and Flag do not apply), the
// startup rule's failure as the cause (it says what was missing), what
// else failed, and the scenarios not run. The caller sets the rest.
func (n *NotReady) Explain(rep *Report, readyKind, readyRule string) *NotReady {
	n.Awaited = "the process to start"
	if readyRule != "" && n.Launched {
		n.Awaited = "its ready line: a " + readyKind + " frame as the first line on stdout (" + readyRule + ")"
	} else {
		n.Within, n.Flag = 0, ""
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		switch {
		case f.Verdict == verdict.Fail && readyRule != "" && f.Rule == readyRule && f.Scenario == "startup":
			n.Cause = f.Message
			// The wait timed out (the process neither exited nor closed
			// stdout: the session says "no ready line within") and no
			// line at all came on stdout.
			if strings.Contains(f.Message, "no ready line within") && !received(f.Transcript) {
				n.Hint = bufferedHint
			}
		case f.Verdict == verdict.Fail:
			n.Failed = append(n.Failed, f.Rule+": "+f.Message)
		case f.Verdict == verdict.Error && strings.HasPrefix(f.Message, "not run") && !seen[f.Scenario]:
			seen[f.Scenario] = true
			n.NotRun++
		}
	}
	return n
}

func received(es []transcript.Entry) bool {
	for _, e := range es {
		if e.Dir == transcript.Received {
			return true
		}
	}
	return false
}

// WriteNotReady renders the block.
func WriteNotReady(w io.Writer, n NotReady, color bool) error {
	bw := bufio.NewWriter(w)
	p := painter(color)
	what, end := "could not be started", "the target could not be started or never became ready"
	switch {
	case n.URL != "":
		what, end = "could not be reached", "the target could not be reached"
	case n.Launched:
		what = "never became ready"
	}
	who := "server"
	if n.Client {
		who = "client"
		if n.Launched && n.URL == "" {
			what = "never connected"
		}
	}
	fmt.Fprintf(bw, "%s\n", p.verdict(verdict.Error, fmt.Sprintf("The %s %s: the suite did not run (exit %d).", who, what, n.Code)))
	fmt.Fprintf(bw, "  awaited:  %s\n", line(n.Awaited, capMessage))
	if n.Within > 0 {
		waited := n.Within.String()
		if n.Flag != "" {
			waited += " (" + n.Flag + " sets it)"
		}
		fmt.Fprintf(bw, "  waited:   %s\n", waited)
	}
	if n.URL != "" {
		fmt.Fprintf(bw, "  url:      %s\n", line(n.URL, capMessage))
	} else {
		fmt.Fprintf(bw, "  command:  %s\n", line(n.Command, capMessage))
	}
	if n.Cause != "" {
		fmt.Fprintf(bw, "  cause:    %s\n", indentRest(block(n.Cause, capMessage), "            "))
	}
	if n.Check != "" {
		fmt.Fprintf(bw, "  check:    %s\n", indentRest(block(n.Check, capMessage), "            "))
	}
	// No line recorded is no proof that none was written (the cause may
	// quote one), so nothing is said then.
	if len(n.Stderr) > 0 {
		fmt.Fprintf(bw, "  stderr (last %d %s):\n", len(n.Stderr), plural(len(n.Stderr), "line", "lines"))
		for _, l := range n.Stderr {
			fmt.Fprintf(bw, "    %s\n", p.paint(sgrDim, line(l, capEntry)))
		}
	}
	for i, f := range n.Failed {
		label := "  also:     "
		if i > 0 {
			label = "            "
		}
		fmt.Fprintf(bw, "%s%s\n", label, indentRest(block(f, capMessage), "            "))
	}
	if n.Hint != "" {
		fmt.Fprintf(bw, "  hint:     %s\n", indentRest(block(n.Hint, capMessage), "            "))
	}
	if n.NotRun > 0 {
		fmt.Fprintf(bw, "  not run:  %d %s (each listed as not run in the JSON report)\n", n.NotRun, plural(n.NotRun, "scenario", "scenarios"))
	}
	fmt.Fprintf(bw, "exit %d: %s\n", n.Code, end)
	return bw.Flush()
}
