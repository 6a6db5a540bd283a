// Package ndjson holds what the reference servers share for reading their
// input: one request line at a time, bounded, so a client's gigabyte line
// cannot make a reference server buffer a gigabyte.
package ndjson

import (
	"bufio"
	"bytes"
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
