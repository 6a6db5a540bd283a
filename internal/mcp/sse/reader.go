package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"sync"
)

// ErrEventTooLarge ends a stream whose event's data outgrew the cap: the
// rest of that event is not read, so a server cannot make the reader hold
// more than the cap whatever it sends.
var ErrEventTooLarge = errors.New("sse: event over the size cap")

// ErrNoEvent ends a stream that sent more than the idle cap of bytes
// (comments, blank lines, fields of events never dispatched) without an
// event: a keep-alive flood would otherwise keep a reader busy for ever.
var ErrNoEvent = errors.New("sse: too many bytes without an event")

// fieldSlack is what a line may hold beyond the event cap: the field name
// and its colon and space, so a data line whose value is exactly at the
// cap is still read.
const fieldSlack = 16

// Reader parses an event stream. It holds at most one line and one event's
// data, each under its cap.
//
// An event whose data is empty by the WHATWG algorithm (no data field at
// all) is not dispatched; its id still becomes the last event id, which
// LastID reports, and its retry is what Retry reports. An event with an
// empty `data:` field is dispatched, with Data "" (the MCP priming event).
type Reader struct {
	br       *bufio.Reader
	maxEvent int
	maxIdle  int

	started bool // the BOM check is done
	skipLF  bool // the last line ended in CR: a following LF belongs to it
	line    []byte

	data    []byte
	hasData bool
	typ     string
	id      string
	hasID   bool
	retry   int
	idle    int // bytes read since the last dispatched event

	lastID    string
	lastRetry int

	budget  Budget
	charged int // cap(line)+cap(data) last charged to budget

	pooled *readBuf // what Close leaves for the next reader
}

// Budget is charged for what a reader's buffers hold (transport.Charge):
// Grow is told their new total size and reports false when the reader
// must give up; Done gives back every byte charged.
type Budget interface {
	Grow(size int) bool
	Done()
}

// ErrBudget ends a stream whose reader waited for its Budget and was
// aborted.
var ErrBudget = errors.New("sse: aborted while waiting for memory other frames being read hold")

// keepBuf is the largest buffer a reader keeps between events.
const keepBuf = 64 << 10

// SetBudget charges b for the reader's buffers from now on; Release
// gives it back.
func (r *Reader) SetBudget(b Budget) { r.budget = b }

// Release drops the reader's buffers and gives back what they were
// charged. The reader may go on, growing them anew.
func (r *Reader) Release() {
	r.line, r.data = nil, nil
	if r.budget != nil && r.charged > 0 {
		r.budget.Done()
	}
	r.charged = 0
}

// charge tells the budget what the buffers hold now, when they grew.
func (r *Reader) charge() error {
	if r.budget == nil {
		return nil
	}
	if size := cap(r.line) + cap(r.data); size > r.charged {
		if !r.budget.Grow(size) {
			return ErrBudget
		}
		r.charged = size
	}
	return nil
}

// NewReader reads events of at most maxEvent bytes of data each, and gives
// up after maxIdle bytes read without dispatching one. Close gives its
// read buffer back for the next reader's use.
func NewReader(r io.Reader, maxEvent, maxIdle int) *Reader {
	b := readBufs.Get().(*readBuf)
	b.br.Reset(r)
	return &Reader{br: b.br, line: b.line, data: b.data, pooled: b, maxEvent: maxEvent, maxIdle: maxIdle}
}

// readBuf is what a reader closed leaves for the next one: its read
// buffer, 4 KiB, bufio's default (the reader scans what the buffer holds
// for the end of a line, so a bigger one saves only reads, and a run
// holds one per stream open, dozens at once against a running server),
// and its line and data buffers when they are small (keepPooled). A run
// opens a stream for most requests it sends (some thousand); made anew
// each time they were a twentieth of what it allocated.
type readBuf struct {
	br         *bufio.Reader
	line, data []byte
}

// keepPooled is the largest line or data buffer a closed reader leaves
// to the next: most events are far smaller, and one over it is garbage
// at once, as before.
const keepPooled = 16 << 10

var readBufs = sync.Pool{New: func() any { return &readBuf{br: bufio.NewReaderSize(nil, 4<<10)} }}

// Close is Release, and leaves the buffers to the next reader: r reads
// nothing more.
func (r *Reader) Close() {
	b := r.pooled
	if b == nil {
		return
	}
	b.line, b.data = nil, nil
	if cap(r.line) <= keepPooled {
		b.line = r.line[:0]
	}
	if cap(r.data) <= keepPooled {
		b.data = r.data[:0]
	}
	r.Release()
	b.br.Reset(nil)
	readBufs.Put(b)
	r.br, r.pooled = nil, nil
}

// LastID is the last event id buffer: the id of the latest event that set
// one, dispatched or not ("" before any, or after `id` with no value).
func (r *Reader) LastID() string { return r.lastID }

// Retry is the latest valid retry field seen, in milliseconds (0: none).
func (r *Reader) Retry() int { return r.lastRetry }

// Next returns the next dispatched event. At the end of the stream it
// returns io.EOF (an event not terminated by a blank line is discarded, as
// the standard says); a read error is returned as is. With
// ErrEventTooLarge the event holds the data's first maxEvent bytes.
func (r *Reader) Next() (Event, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, ErrEventTooLarge) {
				return Event{Type: r.typ, Data: string(r.data)}, err
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		for i, c := range line {
			if c == ':' {
				name, value = line[:i], line[i+1:]
				if len(value) > 0 && value[0] == ' ' {
					value = value[1:]
				}
				break
			}
		}
		switch string(name) {
		case "event":
			if string(value) == "message" {
				r.typ = "message" // nearly every event's: no copy
			} else {
				r.typ = string(value)
			}
		case "data":
			if r.hasData {
				if len(r.data)+1 > r.maxEvent {
					return Event{Type: r.typ, Data: string(r.data)}, ErrEventTooLarge
				}
				r.data = append(r.data, '\n')
			}
			r.hasData = true
			if len(r.data)+len(value) > r.maxEvent {
				r.data = append(r.data, value[:r.maxEvent-len(r.data)]...)
				return Event{Type: r.typ, Data: string(r.data)}, ErrEventTooLarge
			}
			r.data = append(r.data, value...)
			if err := r.charge(); err != nil {
				return Event{}, err
			}
		case "id":
			if !containsNUL(value) {
				r.id, r.hasID = string(value), true
				r.lastID = r.id
			}
		case "retry":
			if n, ok := digits(value); ok {
				r.retry, r.lastRetry = n, n
			}
		}
	}
}

// dispatch ends the event block at a blank line.
func (r *Reader) dispatch() (Event, bool) {
	ev := Event{ID: r.id, HasID: r.hasID, Type: r.typ, Data: string(r.data), Retry: r.retry}
	ok := r.hasData
	r.data, r.hasData, r.typ, r.id, r.hasID, r.retry = r.data[:0], false, "", "", false, 0
	if cap(r.data) > keepBuf || cap(r.line) > keepBuf {
		// One big event must not pin its buffers, nor their charge,
		// for the stream's life.
		r.Release()
	}
	if ok {
		r.idle = 0
	}
	return ev, ok
}

// readLine reads one line without its end (CR, LF or CRLF). A data line
// is bounded by the event cap; any other line, with every other line read
// since the last dispatched event, by the idle cap.
//
// A line wholly in the read buffer, the usual case, is returned as a
// slice of it, good until the next read; only a line the buffer's end
// cuts is copied, into r.line, within the same caps.
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	if !r.started {
		r.started = true
		if b, err := r.br.Peek(1); err == nil && b[0] == 0xEF {
			if bom, _ := r.br.Peek(3); len(bom) == 3 && bom[1] == 0xBB && bom[2] == 0xBF {
				_, _ = r.br.Discard(3)
			}
		}
	}
	if r.skipLF {
		b, err := r.br.Peek(1)
		if err != nil {
			return nil, err
		}
		r.skipLF = false
		if b[0] == '\n' {
			_, _ = r.br.Discard(1)
		}
	}
	limit := r.maxEvent + fieldSlack
	for {
		if _, err := r.br.Peek(1); err != nil {
			return nil, err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		n := bytes.IndexByte(buf, '\n')
		if n < 0 {
			n = len(buf)
		}
		if cr := bytes.IndexByte(buf[:n], '\r'); cr >= 0 {
			n = cr
		}
		eol := n < len(buf)
		total := len(r.line) + n
		data := maybeData(r.line, buf[:n])
		switch {
		case data && total > limit:
			// Its first bytes are the evidence; what follows is not read.
			from := dataStart(r.line, buf[:n])
			for _, part := range [2][]byte{r.line, buf[:n]} {
				skip := min(from, len(part))
				from -= skip
				room := r.maxEvent - len(r.data)
				r.data = append(r.data, part[skip:skip+min(room, len(part)-skip)]...)
			}
			_, _ = r.br.Discard(n)
			return nil, ErrEventTooLarge
		case !data && r.idle+total > r.maxIdle:
			return nil, ErrNoEvent
		}
		if !eol {
			before := cap(r.line)
			r.line = append(r.line, buf...)
			_, _ = r.br.Discard(n)
			if cap(r.line) != before {
				if err := r.charge(); err != nil {
					return nil, err
				}
			}
			continue
		}
		r.skipLF = buf[n] == '\r'
		line := buf[:n]
		if len(r.line) > 0 {
			before := cap(r.line)
			r.line = append(r.line, line...)
			line = r.line
			if cap(r.line) != before {
				if err := r.charge(); err != nil {
					return nil, err
				}
			}
		}
		_, _ = r.br.Discard(n + 1)
		if !data || total == 0 {
			r.idle += total + 1
			if r.idle > r.maxIdle {
				return nil, ErrNoEvent
			}
		}
		return line, nil
	}
}

// maybeData reports whether the line a followed by b is, or may still
// become, a data field.
func maybeData(a, b []byte) bool {
	for k := range 5 {
		switch {
		case k < len(a):
			if a[k] != "data:"[k] {
				return false
			}
		case k-len(a) < len(b):
			if b[k-len(a)] != "data:"[k] {
				return false
			}
		default:
			return true
		}
	}
	return true
}

// dataStart is where the value of the data field a followed by b
// starts: after "data:" and the one space that may follow it.
func dataStart(a, b []byte) int {
	n := len(a) + len(b)
	if n > 5 {
		c := byte(0)
		if len(a) > 5 {
			c = a[5]
		} else {
			c = b[5-len(a)]
		}
		if c == ' ' {
			return 6
		}
	}
	return min(5, n)
}

func containsNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

// digits parses a retry value: ASCII digits only, as the standard says; a
// value too large for an int is ignored like any other invalid one.
func digits(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(b))
	return n, err == nil
}
