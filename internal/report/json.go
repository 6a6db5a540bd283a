package report

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// WriteJSON writes the report as indented JSON in struct field order, the
// contract described by schemas/report.schema.json.
//
// Nil slices are written as [] rather than null so consumers can iterate
// findings and transcripts without a null check. Invalid UTF-8 in server
// text becomes U+FFFD (encoding/json's rule), which keeps the file valid
// JSON while showing where the garbage was. '<', '>' and '&' stay escaped
// as \u003c etc. (the encoder's default) so a report served as text/html by
// mistake cannot run a server's <script>.
//
// The findings, which carry the transcripts and make most of a report's
// size, and the rules are written one at a time into the report's frame
// (jsonenc.go, byte for byte as encoding/json indents them): encoding the
// whole report at once held it twice over in buffers (encoded, then
// indented), megabytes for a large report, and a run's peak memory.
func WriteJSON(w io.Writer, r *Report) error {
	c := *r
	c.Findings, c.Rules = []Finding{}, nil
	var frame bytes.Buffer
	enc := json.NewEncoder(&frame)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("report: writing JSON: %w", err)
	}
	// A raw newline only ever comes from the indentation (one in a string
	// is escaped), so this is the top-level key and nothing a server wrote.
	// The rules, when there are any, follow it (struct order).
	key := []byte("\n  \"findings\": []")
	at := bytes.Index(frame.Bytes(), key)
	if at < 0 {
		return errors.New("report: writing JSON: no findings in the report's frame")
	}
	at += len(key) - len("[]")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(frame.Bytes()[:at])
	buf := make([]byte, 0, 16<<10)
	if len(r.Findings) == 0 {
		bw.WriteString("[]")
	} else {
		bw.WriteByte('[')
		for i := range r.Findings {
			buf = buf[:0]
			if i > 0 {
				buf = append(buf, ',')
			}
			var ok bool
			if buf, ok = appendFinding(newline(buf, 2), &r.Findings[i], 2); !ok {
				// A time JSON cannot hold: encoding/json says which.
				_, err := json.Marshal(&r.Findings[i])
				return fmt.Errorf("report: writing JSON: %w", cmp.Or(err, errors.New("a transcript time is not a number")))
			}
			bw.Write(buf)
		}
		bw.WriteString("\n  ]")
	}
	if len(r.Rules) > 0 {
		bw.WriteString(",\n  \"rules\": [")
		for i := range r.Rules {
			buf = buf[:0]
			if i > 0 {
				buf = append(buf, ',')
			}
			bw.Write(appendRule(newline(buf, 2), &r.Rules[i], 2))
		}
		bw.WriteString("\n  ]")
	}
	bw.Write(frame.Bytes()[at+len("[]"):])
	return writeErr(bw.Flush())
}

func writeErr(err error) error {
	if err != nil {
		return fmt.Errorf("report: writing JSON: %w", err)
	}
	return nil
}

// ReadJSON reads a report written by WriteJSON (by this or another version
// of wirecheck). Unknown fields are ignored so that older tools can read
// newer reports; a document that is not a report at all, or has verdicts
// and levels outside the contract, is an error that says where.
func ReadJSON(rd io.Reader) (*Report, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("report: reading JSON report: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("report: reading JSON report: input is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("report: reading JSON report: %s", describeJSONError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, dec.InputOffset())
		return nil, fmt.Errorf("report: reading JSON report: unexpected data after the report at line %d, column %d", line, col)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("report: reading JSON report: %w", err)
	}
	return &r, nil
}

// check catches documents that decode but are not reports (a transcript
// line, a config file, `{}`), and values the writers cannot render
// meaningfully.
func (r *Report) check() error {
	if r.Tool == "" && r.Protocol == "" {
		return errors.New(`not a wirecheck report: "tool" and "protocol" are missing`)
	}
	if r.Protocol == "" {
		return errors.New(`"protocol" is missing or empty`)
	}
	if r.Level != "" && r.Level.Rank() == 0 {
		return fmt.Errorf(`"level": unknown level %q (want MUST, SHOULD or MAY)`, r.Level)
	}
	for i, f := range r.Findings {
		switch f.Verdict {
		case verdict.Pass, verdict.Fail, verdict.Skip, verdict.Error:
		default:
			return fmt.Errorf(`findings[%d].verdict: unknown verdict %q (want pass, fail, skip or error)`, i, f.Verdict)
		}
		if f.Level.Rank() == 0 {
			return fmt.Errorf(`findings[%d].level: unknown level %q (want MUST, SHOULD or MAY)`, i, f.Level)
		}
		if f.Rule == "" {
			return fmt.Errorf(`findings[%d].rule is missing or empty`, i)
		}
	}
	for i, ru := range r.Rules {
		if ru.ID == "" {
			return fmt.Errorf(`rules[%d].id is missing or empty`, i)
		}
	}
	return nil
}

// describeJSONError adds a line and column to encoding/json's errors, which
// only carry a byte offset.
func describeJSONError(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tpe *time.ParseError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, syn.Error())
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			return fmt.Sprintf("line %d, column %d: a report is a JSON object, not %s", line, col, typ.Value)
		}
		return fmt.Sprintf("line %d, column %d: %q must be %s, not %s", line, col, field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.As(err, &tpe):
		// time.Time is the only time field, and its error names no field.
		return fmt.Sprintf(`"started" must be an RFC 3339 date-time such as 2025-06-01T12:00:00Z, not %q`, tpe.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends early (truncated file?)"
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "true or false"
	}
	return goKind
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
