package sse

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// refReader is Reader as it was when it took its stream a byte at a time
// (before it scanned its read buffer for the end of a line): the
// reference Reader must agree with on every stream, chunked any way.
type refReader struct {
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

// SetBudget charges b for the reader's buffers from now on; Release
// gives it back.
func (r *refReader) SetBudget(b Budget) { r.budget = b }

// Release drops the reader's buffers and gives back what they were
// charged. The reader may go on, growing them anew.
func (r *refReader) Release() {
	r.line, r.data = nil, nil
	if r.budget != nil && r.charged > 0 {
		r.budget.Done()
	}
	r.charged = 0
}

// charge tells the budget what the buffers hold now, when they grew.
func (r *refReader) charge() error {
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

// NewrefReader reads events of at most maxEvent bytes of data each, and gives
// up after maxIdle bytes read without dispatching one.
func NewRefReader(r io.Reader, maxEvent, maxIdle int) *refReader {
	// 4 KiB, bufio's default: the reader takes a byte at a time from it,
	// so a bigger buffer saves only reads, and a run holds one per stream
	// open (dozens at once against a running server, one lane each).
	return &refReader{br: bufio.NewReaderSize(r, 4<<10), maxEvent: maxEvent, maxIdle: maxIdle}
}

// LastID is the last event id buffer: the id of the latest event that set
// one, dispatched or not ("" before any, or after `id` with no value).
func (r *refReader) LastID() string { return r.lastID }

// Retry is the latest valid retry field seen, in milliseconds (0: none).
func (r *refReader) Retry() int { return r.lastRetry }

// Next returns the next dispatched event. At the end of the stream it
// returns io.EOF (an event not terminated by a blank line is discarded, as
// the standard says); a read error is returned as is. With
// ErrEventTooLarge the event holds the data's first maxEvent bytes.
func (r *refReader) Next() (Event, error) {
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
			if !refContainsNUL(value) {
				r.id, r.hasID = string(value), true
				r.lastID = r.id
			}
		case "retry":
			if n, ok := refDigits(value); ok {
				r.retry, r.lastRetry = n, n
			}
		}
	}
}

// dispatch ends the event block at a blank line.
func (r *refReader) dispatch() (Event, bool) {
	ev := Event{ID: r.id, HasID: r.hasID, Type: r.typ, Data: string(r.data), Retry: r.retry}
	ok := r.hasData
	r.data, r.hasData, r.typ, r.id, r.hasID, r.retry = r.data[:0], false, "", "", false, 0
	if cap(r.data) > 64<<10 || cap(r.line) > 64<<10 {
		// One big event must not pin its buffers, nor their charge,
		// for the stream's life.
		r.line, r.data = nil, nil
	}
	if ok {
		r.idle = 0
	}
	return ev, ok
}

// readLine reads one line without its end (CR, LF or CRLF). A data line
// is bounded by the event cap; any other line, with every other line read
// since the last dispatched event, by the idle cap.
func (r *refReader) readLine() ([]byte, error) {
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
			if !refMaybeData(r.line) || len(r.line) == 0 {
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
		if refMaybeData(r.line) {
			if len(r.line) > limit {
				r.data = append(r.data, r.line[refDataStart(r.line):]...)
				r.data = r.data[:min(len(r.data), r.maxEvent)]
				return nil, ErrEventTooLarge
			}
		} else if r.idle+len(r.line) > r.maxIdle {
			return nil, ErrNoEvent
		}
	}
}

// maybeData reports whether line is, or may still become, a data field.
func refMaybeData(line []byte) bool {
	n := min(len(line), 5)
	return string(line[:n]) == "data:"[:n]
}

func refDataStart(line []byte) int {
	if len(line) > 5 && line[5] == ' ' {
		return 6
	}
	return min(5, len(line))
}

func refContainsNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}

// digits parses a retry value: ASCII digits only, as the standard says; a
// value too large for an int is ignored like any other invalid one.
func refDigits(b []byte) (int, bool) {
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
