package officialsuite

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Entry is one entry of the suite's expected-failures file: a whole
// scenario (Check "") or one check of it, and its line.
type Entry struct {
	Scenario, Check string
	Line            int
}

// String is the entry as written.
func (e Entry) String() string {
	if e.Check == "" {
		return e.Scenario
	}
	return e.Scenario + ":" + e.Check
}

// IsExpectedFailures says whether data is the suite's expected-failures
// file rather than a wirecheck baseline: YAML whose first key, at the
// start of a line, is server: or client: (a wirecheck text baseline's
// lines are rule ids, a JSON report starts with a brace).
func IsExpectedFailures(data []byte) bool {
	for _, line := range strings.Split(string(trimBOM(data)), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t == "---" {
			continue
		}
		return strings.HasPrefix(line, "server:") || strings.HasPrefix(line, "client:")
	}
	return false
}

// ExpectedFailures reads the server: entries of the suite's
// expected-failures file (client: entries judge clients, which wirecheck
// does not run, and are left out), with the suite's own grammar:
// `scenario` or `scenario:check-id`, the first colon the delimiter.
func ExpectedFailures(data []byte) ([]Entry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a mapping with server: and/or client: keys")
	}
	var out []Entry
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, list := top.Content[i], top.Content[i+1]
		switch key.Value {
		case "client":
			continue
		case "server":
		default:
			return nil, fmt.Errorf("line %d: unknown key %q (want server: or client:)", key.Line, key.Value)
		}
		if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
			continue
		}
		if list.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("line %d: server: must be a list of scenario names", key.Line)
		}
		for _, e := range list.Content {
			if e.Kind != yaml.ScalarNode || e.Value == "" {
				return nil, fmt.Errorf("line %d: want '<scenario>' or '<scenario>:<check-id>' (a per-check entry takes no space after the colon)", e.Line)
			}
			s, c, _ := strings.Cut(e.Value, ":")
			if s == "" || strings.Contains(e.Value, ":") && c == "" {
				return nil, fmt.Errorf("line %d: %q: both sides of the colon are required", e.Line, e.Value)
			}
			out = append(out, Entry{Scenario: s, Check: c, Line: e.Line})
		}
	}
	return out, nil
}

// trimBOM is data without a leading UTF-8 byte order mark.
func trimBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) }
