package peer

import (
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// passed remembers the parts of frames (a kind's at: /result) that passed
// a schema, by their bytes, across the peers of a run: a server answers
// initialize (icons inlined) and tools/list alike in each of a revision's
// sessions, and a validation costs tens of microseconds and many
// allocations. A part's value is a function of its bytes, so a pass found
// here is the verdict validation would give. Failures are not kept: their
// messages are built from the validator's error, and they are rare.
var passed = passCache{bySchema: map[*jsonschema.Schema]map[string]struct{}{}}

// Parts over partMax bytes are validated each time, and once the cache
// holds cacheMax bytes of parts nothing more is added: it must not weigh
// on the run's peak memory.
const (
	partMax  = 64 << 10
	cacheMax = 1 << 20
)

type passCache struct {
	mu       sync.Mutex
	bySchema map[*jsonschema.Schema]map[string]struct{}
	bytes    int
}

func (c *passCache) has(s *jsonschema.Schema, part []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.bySchema[s][string(part)]
	return ok
}

func (c *passCache) add(s *jsonschema.Schema, part []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(part) > cacheMax {
		return
	}
	m := c.bySchema[s]
	if m == nil {
		m = map[string]struct{}{}
		c.bySchema[s] = m
	}
	if _, ok := m[string(part)]; !ok {
		m[string(part)] = struct{}{}
		c.bytes += len(part)
	}
}

// part returns the bytes of the value at the JSON pointer at in raw, a
// frame Decode accepted, when at names one member of the top-level object
// ("/result"); ok is false for any other pointer, or when the member is
// missing, too large, or spelled with an escape in some key (keys are
// compared as bytes). Of duplicate members the last counts, as in the
// decoded value.
func part(raw []byte, at string) ([]byte, bool) {
	if len(at) < 2 || at[0] != '/' || strings.ContainsAny(at[1:], "/~") {
		return nil, false
	}
	name := at[1:]
	i := space(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	var found []byte
	i = space(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil, false
	}
	for i < len(raw) && raw[i] == '"' {
		from := i + 1
		end := from
		for end < len(raw) && raw[end] != '"' && raw[end] != '\\' {
			end++
		}
		if end >= len(raw) || raw[end] != '"' {
			return nil, false
		}
		key := raw[from:end]
		i = space(raw, end+1)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = space(raw, i+1)
		start := i
		if i = skipValue(raw, i); i < 0 {
			return nil, false
		}
		if string(key) == name {
			found = raw[start:i]
		}
		if i = space(raw, i); i >= len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = space(raw, i+1)
		case '}':
			return found, found != nil && len(found) <= partMax
		default:
			return nil, false
		}
	}
	return nil, false
}

func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the JSON value at b[i], b being valid
// JSON, or -1 when it runs off the end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			}
			i++
		}
		return -1
	}
	from := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	if i == from {
		return -1
	}
	return i
}

// skipString returns the index after the string whose opening quote is at
// b[i], or -1.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
