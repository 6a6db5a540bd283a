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
)

// Exit is the exit code of a run that began, judged at level, and what to
// say with it (nil for a pass, "" for nothing more than the report):
// ExitUsage with runErr when the harness itself failed (an interrupt is
// no failure of the harness), ExitViolations on a violation at or above
// level, and ExitViolations when interrupted, since an interrupted gate
// must not pass.
func (r *Report) Exit(level verdict.Level, runErr error, interrupted bool) (int, error) {
	switch {
	case runErr != nil && !errors.Is(runErr, context.Canceled):
		return ExitUsage, runErr
	case r.Failed(level):
		return ExitViolations, errors.New("")
	case r.stale > 0:
		return ExitViolations, fmt.Errorf("--baseline-strict: %d baseline entries no longer fail; remove them (see the notes)", r.stale)
	case interrupted:
		return ExitViolations, errors.New("interrupted")
	}
	return ExitOK, nil
}
