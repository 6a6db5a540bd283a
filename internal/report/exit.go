package report

import (
	"context"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Exit codes: the contract README.md states under "The CLI"; users' CI
// scripts depend on them.
const (
	ExitOK         = 0
	ExitViolations = 1
	ExitUsage      = 2
	ExitNoTarget   = 3
	// A run a signal ended exits as a shell reports a process the signal
	// killed (128 + its number): a CI job's log reads the same either way,
	// and neither is mistaken for a verdict.
	ExitSIGINT  = 130
	ExitSIGTERM = 143
)

// LevelRule is why run, fuzz and replay judge at different levels by
// default; each --help and the console report's header state it, so a
// SHOULD failure that fails a fuzz campaign but not a run surprises no one.
const LevelRule = "the defaults follow what each command is for: run certifies, at must; " +
	"fuzz hunts crashes and hangs, which break should rules where a document is silent, at should; " +
	"replay reproduces a saved failure whatever its level, at may; --level sets it"

// LevelDefaults is LevelRule in short, for the console report's header.
const LevelDefaults = "defaults: run must, fuzz should, replay may; --level sets it"

// InterruptCode is the exit code of a run the signal named ended.
func InterruptCode(signal string) int {
	if signal == "SIGTERM" {
		return ExitSIGTERM
	}
	return ExitSIGINT
}

// Exit is the exit code of a run that began, judged at level, and what to
// say with it (nil for a pass, "" for nothing more than the report):
// InterruptCode when a signal ended it (Interrupt), whatever it found
// before, since the run did not finish and an interrupted gate must not
// pass; ExitUsage with runErr when the harness itself failed (a cancelled
// run is no failure of the harness); ExitViolations on a violation at or
// above level.
func (r *Report) Exit(level verdict.Level, runErr error) (int, error) {
	switch {
	case r.Interrupted:
		return InterruptCode(r.Signal), fmt.Errorf("interrupted by %s: the run did not finish; the reports hold what was judged before the signal", r.Signal)
	case runErr != nil && !errors.Is(runErr, context.Canceled):
		return ExitUsage, runErr
	case r.Failed(level):
		return ExitViolations, errors.New("")
	case r.stale > 0:
		return ExitViolations, fmt.Errorf("--baseline-strict: %d baseline entries no longer fail; remove them (see the notes)", r.stale)
	case runErr != nil:
		// Cancelled by a caller, not a signal (a library user's context).
		return ExitViolations, errors.New("interrupted")
	}
	return ExitOK, nil
}
