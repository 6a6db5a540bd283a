package fuzz

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/report"
)

// String is the campaign's progress in one line, as a terminal shows it
// live and the summary repeats it.
func (st Stats) String() string {
	rate := 0.0
	if s := st.Elapsed.Seconds(); s > 0 {
		rate = float64(st.Messages) / s
	}
	return strings.Join([]string{
		fmt.Sprintf("%d sequences", st.Sequences),
		fmt.Sprintf("%d messages", st.Messages),
		fmt.Sprintf("%.0f msg/s", rate),
		fmt.Sprintf("%d distinct failures", st.Bugs),
		st.Elapsed.Round(100 * time.Millisecond).String(),
	}, " · ")
}

// Progress shows the campaign's progress live on w when w is a terminal
// (a log gets only the summary), until stop, which clears the line. Each
// distinct failure gets a line of its own above it as it is found (its
// shrinking done), so a long campaign says early what it has.
func (c *Campaign) Progress(w io.Writer) (stop func()) {
	f, ok := w.(*os.File)
	if !ok || !report.IsTerminal(f) {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		shown := 0
		for {
			select {
			case <-tick.C:
				for _, b := range c.found(shown) {
					fmt.Fprintf(w, "\r\x1b[Kfound: %s %s after %s\n", b.Rule, b.Level, b.Shape)
					shown++
				}
				fmt.Fprintf(w, "\r\x1b[K%s", c.Stats())
			case <-done:
				fmt.Fprint(w, "\r\x1b[K")
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-finished
	}
}

// found lists the distinct failures found after the first n.
func (c *Campaign) found(n int) []*Bug {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= len(c.order) {
		return nil
	}
	return append([]*Bug(nil), c.order[n:]...)
}

// Summary writes what a finished campaign found: its progress, how the
// time went, and each distinct failure with its reproducer and the line
// that replays it.
func Summary(w io.Writer, st Stats, bugs []*Bug, replay func(file string) string) {
	fmt.Fprintf(w, "\nfuzz: %s\n  time: %s\n", st, st.Parts())
	if st.Stopped {
		fmt.Fprintf(w, "  stopped at --max-failures: the rest of the budget was not run\n")
	}
	if st.Capped {
		fmt.Fprintf(w, "  %s\n", st.CapNote())
	}
	for _, bug := range bugs {
		fmt.Fprintf(w, "  %s %s after %s: %d hit(s)\n", bug.Rule, bug.Level, bug.Shape, bug.Hits)
		fmt.Fprintf(w, "    reproducer %s\n", bug.Shrinking())
		if bug.Unshrunk != "" {
			fmt.Fprintf(w, "    not minimal: %s\n", bug.Unshrunk)
		}
		fmt.Fprintf(w, "    saved %s\n    replay: %s\n", bug.File, replay(bug.File))
	}
}

// CapNote says that --duration ended a campaign before its --runs.
func (st Stats) CapNote() string {
	return fmt.Sprintf("stopped at the --duration cap (%s) before --runs %d: %d of %d sequences generated",
		st.Cap, st.Runs, st.Generated, st.Runs)
}

// SaveAll saves the reproducer of each failure in dir, setting its File;
// one that cannot be saved is said on log, and the others still are.
func (c *Campaign) SaveAll(bugs []*Bug, dir string, log io.Writer) {
	for _, bug := range bugs {
		file, err := c.Save(bug, dir)
		if err != nil {
			fmt.Fprintf(log, "wirecheck: saving the reproducer of %s: %v\n", bug.Rule, err)
			continue
		}
		bug.File = file
	}
}
