package httpmcp

import (
	"strings"
	"testing"
)

// A server streaming new ids for ever must not grow what the session
// remembers of them past maxRemembered.
func TestFirstSeenIsBounded(t *testing.T) {
	tr, err := Dial(Options{URL: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	c := tr.(*client)
	for i := range 64 {
		id := strings.Repeat("x", 256<<10) + string(rune('A'+i))
		if _, seen := c.firstSeen(c.eventIDs, id, i); seen {
			t.Fatalf("id %d seen before", i)
		}
	}
	if c.remembered > maxRemembered {
		t.Fatalf("remembered %d bytes, over the cap %d", c.remembered, maxRemembered)
	}
	if len(c.eventIDs) == 64 {
		t.Fatal("every id was kept")
	}
	if first, seen := c.firstSeen(c.eventIDs, strings.Repeat("x", 256<<10)+"A", 99); !seen || first != 0 {
		t.Fatalf("the first id is no longer known: %d %v", first, seen)
	}
}
