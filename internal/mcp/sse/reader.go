package sse

import (
	"bufio"
	"errors"
	"io"
	"strconv"
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
// up after maxIdle bytes read without dispatching one.
func NewReader(r io.Reader, maxEvent, maxIdle int) *Reader {
	// 4 KiB, bufio's default: the reader takes a byte at a time from it,
	// so a bigger buffer saves only reads, and a run holds one per stream
	// open (dozens at once against a running server, one lane each).
	return &Reader{br: bufio.NewReaderSize(r, 4<<10), maxEvent: maxEvent, maxIdle: maxIdle}
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
			r.typ = string(value)
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
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	limit := r.maxEvent + fieldSlack
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if !r.started {
			r.started = true
			if c == 0xEF {
				if bom, _ := r.br.Peek(2); len(bom) == 2 && bom[0] == 0xBB && bom[1] == 0xBF {
					_, _ = r.br.Discard(2)
					continue
				}
			}
		}
		if r.skipLF {
			r.skipLF = false
			if c == '\n' {
				continue
			}
		}
		if c == '\r' || c == '\n' {
			r.skipLF = c == '\r'
			if !maybeData(r.line) || len(r.line) == 0 {
				r.idle += len(r.line) + 1
				if r.idle > r.maxIdle {
					return nil, ErrNoEvent
				}
			}
			return r.line, nil
		}
		before := cap(r.line)
		r.line = append(r.line, c)
		if cap(r.line) != before {
			if err := r.charge(); err != nil {
				return nil, err
			}
		}
		if maybeData(r.line) {
			if len(r.line) > limit {
				r.data = append(r.data, r.line[dataStart(r.line):]...)
				r.data = r.data[:min(len(r.data), r.maxEvent)]
				return nil, ErrEventTooLarge
			}
		} else if r.idle+len(r.line) > r.maxIdle {
			return nil, ErrNoEvent
		}
	}
}

// maybeData reports whether line is, or may still become, a data field.
func maybeData(line []byte) bool {
	n := min(len(line), 5)
	return string(line[:n]) == "data:"[:n]
}

func dataStart(line []byte) int {
	if len(line) > 5 && line[5] == ' ' {
		return 6
	}
	return min(5, len(line))
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
