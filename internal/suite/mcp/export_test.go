package mcp

import (
	"time"

	"github.com/wirecheck/wirecheck/internal/scenario"
)

// SlowTool and SlowArgs expose the cancel scenario's heuristics to tests.
func SlowTool(params map[string]string, items []any) (map[string]any, string) {
	return slowTool(&scenario.Env{Params: params}, items)
}

func SlowArgs(schema map[string]any) (map[string]any, time.Duration) { return slowArgs(schema, 1) }

// Fallback opens the current process's session as a scenario does and
// returns why it fell back to initialize ("" when it did not).
func Fallback(e *scenario.Env) (string, error) {
	s, err := ensure(e)
	if err != nil {
		return "", err
	}
	return s.fallback, nil
}

// Silence is why the current process's server/discover counts as
// unanswered, as the suite records it.
func Silence(e *scenario.Env) string {
	why, _ := silentWhy(e)
	return why
}
