package runner

import (
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/target"
)

// defaultLevel is the --level default of each command a rerun line names.
var defaultLevel = map[string]string{"run": "must", "replay": "may"}

// Rerun is r with what the command it names does by default left out, so
// the line says only what differs: the runner's timeouts (run and replay
// both take them; fuzz's own shorter timeout must travel with its
// reproducers), and the level run or replay judges at by default.
func Rerun(r target.Rerun) target.Rerun {
	if r.Timeout == DefaultTimeout {
		r.Timeout = 0
	}
	if r.Startup == DefaultStartupTimeout {
		r.Startup = 0
	}
	if strings.EqualFold(r.Level, defaultLevel[r.Command]) {
		r.Level = ""
	}
	return r
}

// reproduce is the line that runs scenario name again (Config.Rerun with
// the scenario's own head): replay's names the scenario's file, run's the
// scenario; "" for a scenario replay did not read.
func (r *run) reproduce(name string) string {
	rr := *r.cfg.Rerun
	if rr.Command != "replay" {
		rr.Head = append(slices.Clip(rr.Head), "--scenario", name)
		return r.cfg.Target.Line(rr)
	}
	for _, sc := range r.cfg.Scenarios {
		if sc.Name == name {
			rr.Head = append(slices.Clip(rr.Head), sc.File)
			return r.cfg.Target.Line(rr)
		}
	}
	return ""
}
