// Package transcript records every frame exchanged with a server under test,
// both directions and stderr, with a time offset, so a run can be read back
// and replayed without the spec that produced it.
package transcript

import (
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

// MaxBytes caps the text the recorders of one run keep together, for the
// same reason: 200,000 lines of MaxEntryBytes would be 3 GiB.
const MaxBytes = 64 << 20

// Budget is what the recorders of one run may keep together (the lanes of
// a run each have a recorder). It is safe for concurrent use.
type Budget struct {
	mu              sync.Mutex
	lines, bytes    int
	maxLines, maxBy int
}

// NewBudget allows lines lines and bytes bytes of text in all.
func NewBudget(lines, bytes int) *Budget { return &Budget{maxLines: lines, maxBy: bytes} }

// take reserves room for one line of n bytes.
func (b *Budget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lines >= b.maxLines || b.bytes+n > b.maxBy {
		return false
	}
	b.lines++
	b.bytes += n
	return true
}

// MaxEntryBytes caps what one transcript line keeps of a frame, so a server
// that writes a gigabyte line cannot make the report a gigabyte.
const MaxEntryBytes = 16 << 10

// Recorder is safe for concurrent use: the reader goroutines of a transport
// and the scenario driver append to it at once.
type Recorder struct {
	mu       sync.Mutex
	start    time.Time
	entries  []Entry
	scenario string
	redact   func(string) string
	dropped  int
	budget   *Budget
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

// Add records one line and returns its sequence number (-1 once the
// recorder is full).
func (r *Recorder) Add(dir Direction, b []byte) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	text, cut := Text(b)
	if !r.budget.take(len(text)) {
		r.dropped++
		return -1
	}
	if r.redact != nil {
		text = r.redact(text)
	}
	e := Entry{
		Seq:       len(r.entries),
		OffsetMS:  float64(time.Since(r.start).Microseconds()) / 1000,
		Dir:       dir,
		Text:      text,
		Scenario:  r.scenario,
		Truncated: cut,
	}
	r.entries = append(r.entries, e)
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
	return len(r.entries)
}

// Slice returns a copy of the entries in [from, to); to < 0 means "to the end".
func (r *Recorder) Slice(from, to int) []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if to < 0 || to > len(r.entries) {
		to = len(r.entries)
	}
	if from < 0 {
		from = 0
	}
	if from >= to {
		return nil
	}
	out := make([]Entry, to-from)
	copy(out, r.entries[from:to])
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
