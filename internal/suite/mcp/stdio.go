package mcp

import (
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/internal/scenario"
)

// closeAndEnd closes stdin so the runner gives the next scenario a process
// initialized with the run's revision.
func closeAndEnd(e *scenario.Env) error {
	e.Closed = true
	_ = e.CloseInput()
	return nil
}

// exitWait is how long a server has to exit once its stdin is closed: what
// the TypeScript and Python SDK clients allow before they send SIGTERM.
// The pages say only "within a reasonable time"; --param mcp-exit-wait
// sets another bound.
const exitWait = 2 * time.Second

// ExitWaitParam names the --param that sets exitWait.
const ExitWaitParam = "mcp-exit-wait"

func shutdown(e *scenario.Env) error {
	if k := httpKind(e); k != "" {
		// Over HTTP stdin is no channel: closing it says nothing. The
		// session is opened anyway: against a running server this
		// scenario may begin a lane, and the liveness ping after it
		// needs one (a server may refuse any request outside one).
		_, err := ensure(e)
		return err
	}
	if _, err := ensure(e); err != nil {
		return err
	}
	e.Closed = true
	if err := e.CloseInput(); err != nil {
		return fmt.Errorf("%w: closing stdin: %v", scenario.ErrGone, err)
	}
	within, bound := exitWait, "wirecheck's default: the page says only \"within a reasonable time\"; --param "+ExitWaitParam+"=DURATION sets it"
	if v := e.Params[ExitWaitParam]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("--param %s=%s: not a positive duration (e.g. 5s)", ExitWaitParam, v)
		}
		within, bound = d, "--param "+ExitWaitParam
	}
	select {
	case <-e.Exited():
		e.Pass("MCP-STDIO-4", -1)
	case <-time.After(within):
		e.Hung = true
		e.Fail("MCP-STDIO-4", -1, "the server was still running "+within.String()+" after its stdin closed ("+bound+")", "the process exits", "still running")
	}
	return nil
}
