package main

import (
	"errors"
	"strings"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/session"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// notReady describes a run that never began (exit 3), from what the run
// recorded: nil when it began. launched says the process started (and so
// a ready line was awaited); stderr is its last stderr lines.
func notReady(rep *report.Report, runErr error, p *spec.Protocol, t *targetFlags, argv []string, launched bool, stderr []string) *report.NotReady {
	if !errors.Is(runErr, session.ErrNotStarted) {
		return nil
	}
	n := &report.NotReady{
		Awaited: "the process to start", Command: describe(argv), Code: exitNoTarget, Stderr: stderr, Launched: launched,
		Cause: strings.TrimPrefix(runErr.Error(), session.ErrNotStarted.Error()+": "),
	}
	if st := p.Startup; st != nil && launched {
		n.Awaited = "its ready line: a " + st.Kind + " frame as the first line on stdout (" + st.Rule + ")"
		n.Within, n.Flag = t.startupTimeout, "--startup-timeout"
	}
	for _, f := range rep.Findings {
		if f.Verdict != verdict.Fail {
			continue
		}
		if st := p.Startup; st != nil && f.Rule == st.Rule && f.Scenario == "startup" {
			n.Cause = f.Message // says the same, with what was missing
			continue
		}
		n.Failed = append(n.Failed, f.Rule+": "+f.Message)
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Verdict == verdict.Error && strings.HasPrefix(f.Message, "not run") && !seen[f.Scenario] {
			seen[f.Scenario] = true
			n.NotRun++
		}
	}
	return n
}

// startupEvidence finds the run's startup failure in its report: whether
// the process was launched (a ready line was awaited and missed) and the
// stderr it wrote.
func startupEvidence(rep *report.Report, p *spec.Protocol) (bool, []string) {
	if p.Startup == nil {
		return false, nil
	}
	for _, f := range rep.Findings {
		if f.Scenario == "startup" && f.Rule == p.Startup.Rule && f.Verdict == verdict.Fail {
			return true, report.StartupStderr(f.Transcript)
		}
	}
	return false, nil
}
