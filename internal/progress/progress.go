// Package progress shows a run live on a terminal: lanes done of the
// total, failures so far, and the lane that has been running longest
// (what a user waits on). It draws with schollz/progressbar on stderr,
// and only where a person watches: On says when.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// On reports whether to draw: both stdout and stderr are terminals (a
// pipe or a file gets no escape codes), no report goes to stdout, and
// the user did not say --no-progress.
func On(stdout, stderr io.Writer, reports []string, off bool) bool {
	if off {
		return false
	}
	for _, r := range reports {
		if strings.HasSuffix(r, "=-") {
			return false
		}
	}
	out, ok1 := stdout.(*os.File)
	errw, ok2 := stderr.(*os.File)
	return ok1 && ok2 && report.IsTerminal(out) && report.IsTerminal(errw)
}

// Campaign starts a fuzz campaign's own live line (show: the campaign's
// Progress) where On says to draw, and returns what clears it.
func Campaign(stdout, stderr io.Writer, reports []string, off bool, show func(io.Writer) func()) (stop func()) {
	if !On(stdout, stderr, reports, off) {
		return func() {}
	}
	return show(stderr)
}

// Run is the live line of one run; it is a runner.Progress.
type Run struct {
	w   io.Writer
	now func() time.Time

	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	running  map[int]lane
	failures map[string]bool
	stop     chan struct{}
	done     sync.WaitGroup
}

type lane struct {
	since    time.Time
	scenario string
}

// NewRun draws on w (stderr) until Stop.
func NewRun(w io.Writer) *Run {
	return &Run{w: w, now: time.Now, running: map[int]lane{}, failures: map[string]bool{}, stop: make(chan struct{})}
}

// Planned starts the bar: lanes to run.
func (r *Run) Planned(lanes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		// Several runs on one line (run --revision all): their lanes add up.
		r.bar.ChangeMax(r.bar.GetMax() + lanes)
		return
	}
	r.bar = progressbar.NewOptions(lanes,
		progressbar.OptionSetWriter(r.w),
		progressbar.OptionSetDescription("lanes"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	// The slowest lane's clock moves even when no event comes.
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.mu.Lock()
				r.describe()
				r.mu.Unlock()
			case <-r.stop:
				return
			}
		}
	}()
}

// Scenario notes the scenario a lane is on.
func (r *Run) Scenario(id int, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.running[id]
	if !ok {
		l.since = r.now()
	}
	l.scenario = name
	r.running[id] = l
	r.describe()
}

// Observed counts the rules failed so far.
func (r *Run) Observed(o verdict.Observation) {
	if o.Verdict != verdict.Fail && o.Verdict != verdict.Error {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failures[o.Rule] {
		r.failures[o.Rule] = true
		r.describe()
	}
}

// LaneDone moves the bar.
func (r *Run) LaneDone(id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, id)
	if r.bar != nil {
		_ = r.bar.Add(1)
	}
	r.describe()
}

// Line is the description beside the bar: failures so far and the lane
// running longest.
func (r *Run) Line() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.line()
}

func (r *Run) line() string {
	s := fmt.Sprintf("%d rules failed", len(r.failures))
	slow, found := lane{}, false
	for _, l := range r.running {
		if !found || l.since.Before(slow.since) {
			slow, found = l, true
		}
	}
	if found {
		s += fmt.Sprintf(" · slowest: %s %s", slow.scenario, r.now().Sub(slow.since).Round(time.Second))
	}
	return s
}

func (r *Run) describe() {
	if r.bar != nil {
		r.bar.Describe(r.line())
	}
}

// Stop clears the line, before the report is written. A nil Run (no
// live line) stops at once.
func (r *Run) Stop() {
	if r == nil {
		return
	}
	select {
	case <-r.stop:
		return
	default:
		close(r.stop)
	}
	r.done.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		_ = r.bar.Clear()
	}
}
