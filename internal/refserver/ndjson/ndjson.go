// Package ndjson holds what the reference servers share for reading their
// input: one request line at a time, bounded, so a client's gigabyte line
// cannot make a reference server buffer a gigabyte.
package ndjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// MaxLine bounds one request line; longer lines are reported too long.
const MaxLine = 16 << 20

// ReadLine reads one line without its newline. A line over MaxLine is
// drained and reported as too long (with no bytes) instead of being
// buffered. At end of input it returns what was read and the error.
func ReadLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			buf = bytes.TrimSuffix(buf, []byte{'\n'})
		}
		return buf, tooLong, err
	}
}

// Decode parses a line as exactly one JSON value, numbers kept as
// json.Number (a reference server echoes ids as it read them).
func Decode(line []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// Loop is a reference server's read loop. It reads lines from in until it
// ends and gives handle every line keep accepts (a too-long line always;
// eof says the line was not ended by a newline), then calls flush. handle
// stops the loop with an exit code; at the end of input Loop returns 0,
// or, when hang is set (a server's ignore-eof fault), sleeps for an hour.
func Loop(in io.Reader, keep func(line []byte, eof bool) bool, handle func(line []byte, tooLong bool) (code int, stop bool), flush func(), hang bool) int {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := ReadLine(r)
		if tooLong || keep(line, err != nil) {
			code, stop := handle(line, tooLong)
			if flush != nil {
				flush()
			}
			if stop {
				return code
			}
		}
		if err != nil {
			if hang {
				time.Sleep(time.Hour)
			}
			return 0
		}
	}
}
