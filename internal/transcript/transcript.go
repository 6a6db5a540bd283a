// Package transcript records every frame exchanged with a server under test,
// both directions and stderr, with a time offset, so a run can be read back
// and replayed without the spec that produced it.
package transcript

import (
	"fmt"
	"sync"
	"time"
)

// Direction says who produced a transcript line.
type Direction string

// The directions a transcript line can take.
const (
	Sent     Direction = "sent"     // wirecheck → server (stdin / request body)
	Received Direction = "received" // server → wirecheck (stdout / response body)
	Stderr   Direction = "stderr"   // a line the server wrote on stderr
	Note     Direction = "note"     // something the harness observed (exit, timeout, restart)
)

// Entry is one transcript line. Text holds the frame's bytes as text (invalid
// UTF-8 is kept as Go's %q would escape it, so the JSON stays valid).
type Entry struct {
	Seq      int       `json:"seq"`
	OffsetMS float64   `json:"t_ms"`
	Dir      Direction `json:"dir"`
	Text     string    `json:"text"`
	Scenario string    `json:"scenario,omitempty"`
	// Truncated is the number of bytes dropped from Text because the frame
	// exceeded the recorder's per-entry cap.
	Truncated int `json:"truncated,omitempty"`
}

// MaxEntries caps the lines the recorders of one run keep together; past
// it, lines are counted but dropped, so a server flooding stdout cannot
// exhaust memory through the transcript.
const MaxEntries = 200_000

// MaxBytes caps what the recorders of one run keep together, for the same
// reason, counting each line's text and LineOverhead: a line costs its
// Entry as well as its text, and a flood of short lines is mostly Entry.
const MaxBytes = 16 << 20

// LineOverhead is charged per line on top of its text: the Entry (72
// bytes) and the rounding of the text's allocation.
const LineOverhead = 96

// ScenarioShare is the fraction of a budget one scenario may fill with the
// lines of one direction (what the server wrote on stdout, on stderr, what
// wirecheck sent, its notes): a server that floods in one scenario, or
// floods stderr, leaves room for the evidence of every other scenario and
// of its own stdout. With MaxBytes that is 1 MiB, some 10,000 lines.
const ScenarioShare = 16

// Budget is what the recorders of one run may keep together (the lanes of
// a run each have a recorder). It is safe for concurrent use.
type Budget struct {
	mu              sync.Mutex
	lines, bytes    int
	maxLines, maxBy int
	perScenario     int
}

// NewBudget allows lines lines and bytes bytes (text and LineOverhead per
// line) in all, and one scenario's lines of one direction a ScenarioShare
// of the bytes.
func NewBudget(lines, bytes int) *Budget {
	return &Budget{maxLines: lines, maxBy: bytes, perScenario: bytes / ScenarioShare}
}

// WithScenarioCap sets what one scenario's lines of one direction may cost
// in one recorder, and returns b.
func (b *Budget) WithScenarioCap(n int) *Budget {
	b.mu.Lock()
	b.perScenario = n
	b.mu.Unlock()
	return b
}

// take reserves room for one line costing n. Notes, which only the harness
// writes and the reader needs to make sense of the rest, are bounded per
// scenario only.
func (b *Budget) take(n int, note bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !note && (b.lines >= b.maxLines || b.bytes+n > b.maxBy) {
		return false
	}
	b.lines++
	b.bytes += n
	return true
}

func (b *Budget) scenarioCap() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.perScenario
}

// MaxEntryBytes caps what one transcript line keeps of a frame, so a server
// that writes a gigabyte line cannot make the report a gigabyte.
const MaxEntryBytes = 16 << 10

// chunkLen is the entries per chunk of a recorder's storage: chunks are
// never copied to grow, where one slice would be copied at each doubling
// and hold up to twice what it needs.
const chunkLen = 1024

// firstChunk is the room a chunk starts with.
const firstChunk = 16

// Recorder is safe for concurrent use: the reader goroutines of a transport
// and the scenario driver append to it at once.
type Recorder struct {
	mu       sync.Mutex
	start    time.Time
	chunks   [][]Entry
	n        int
	scenario string
	redact   func(string) string
	dropped  int
	budget   *Budget
	// used is what each scenario's lines of each direction cost so far.
	used map[share]int
}

type share struct {
	scenario string
	dir      Direction
}

// NewRecorder starts the clock at the moment of the call.
func NewRecorder() *Recorder { return NewRecorderAt(time.Now(), nil) }

// NewRecorderAt starts the clock at start and keeps what budget allows
// (nil: a budget of its own, MaxEntries and MaxBytes), so the transcripts
// of processes that run side by side share one time line and one cap.
func NewRecorderAt(start time.Time, budget *Budget) *Recorder {
	if budget == nil {
		budget = NewBudget(MaxEntries, MaxBytes)
	}
	return &Recorder{start: start, budget: budget}
}

// SetRedactor installs a function applied to every text before it is stored
// (used to strip credentials such as Authorization headers).
func (r *Recorder) SetRedactor(f func(string) string) {
	r.mu.Lock()
	r.redact = f
	r.mu.Unlock()
}

// SetScenario tags the entries recorded from now on.
func (r *Recorder) SetScenario(name string) {
	r.mu.Lock()
	r.scenario = name
	r.mu.Unlock()
}

// Add records one line and returns its sequence number, or -1 when the
// budget or the scenario's share of it is spent: the line is then counted
// as dropped, and the first line dropped from a scenario's share is
// replaced by a note saying so, so the reader knows the gap is ours.
func (r *Recorder) Add(dir Direction, b []byte) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	text, cut := Text(b)
	cost := len(text) + LineOverhead
	k := share{r.scenario, dir}
	if r.used == nil {
		r.used = map[share]int{}
	}
	had := r.used[k]
	if limit := r.budget.scenarioCap(); had+cost > limit {
		r.dropped++
		if had <= limit {
			// Once per scenario and direction: had goes past the limit.
			r.used[k] = limit + 1
			msg := fmt.Sprintf("the %s lines of this scenario reached the %s a scenario may keep; later ones are counted, not kept", dir, size(limit))
			if r.budget.take(len(msg)+LineOverhead, true) {
				r.append(Note, msg, 0)
			}
		}
		return -1
	}
	if !r.budget.take(cost, dir == Note) {
		r.dropped++
		return -1
	}
	r.used[k] = had + cost
	return r.append(dir, text, cut)
}

func size(n int) string {
	if n%(1<<10) != 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

func (r *Recorder) append(dir Direction, text string, cut int) int {
	if r.redact != nil {
		text = r.redact(text)
	}
	e := Entry{
		Seq:       r.n,
		OffsetMS:  float64(time.Since(r.start).Microseconds()) / 1000,
		Dir:       dir,
		Text:      text,
		Scenario:  r.scenario,
		Truncated: cut,
	}
	// A new chunk starts small and grows as a slice does up to chunkLen:
	// a run against a running server has a recorder per scenario, most of
	// which keep a few dozen lines, and a whole chunk each (72 KiB) was
	// most of such a run's heap.
	if r.n%chunkLen == 0 {
		r.chunks = append(r.chunks, make([]Entry, 0, firstChunk))
	}
	last := len(r.chunks) - 1
	r.chunks[last] = append(r.chunks[last], e)
	r.n++
	return e.Seq
}

// Dropped is how many lines arrived after the recorder was full.
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Len is the number of entries so far; a scenario remembers it at its start
// to slice out its own lines later.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Slice returns a copy of the entries in [from, to); to < 0 means "to the end".
func (r *Recorder) Slice(from, to int) []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if to < 0 || to > r.n {
		to = r.n
	}
	if from < 0 {
		from = 0
	}
	if from >= to {
		return nil
	}
	out := make([]Entry, 0, to-from)
	for i := from; i < to; {
		c := r.chunks[i/chunkLen]
		j := min(len(c), i%chunkLen+(to-i))
		out = append(out, c[i%chunkLen:j]...)
		i += j - i%chunkLen
	}
	return out
}

// Text turns raw frame bytes into storable text, capped at MaxEntryBytes. It
// returns how many bytes were cut. Invalid UTF-8 is kept: encoding/json turns
// each bad byte into U+FFFD when the transcript is written, which keeps the
// report valid JSON while still showing where the garbage was.
func Text(b []byte) (string, int) {
	if len(b) > MaxEntryBytes {
		return string(b[:MaxEntryBytes]), len(b) - MaxEntryBytes
	}
	return string(b), 0
}
