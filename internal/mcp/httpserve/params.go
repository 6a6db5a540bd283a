package httpserve

import (
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The custom headers of 2026-07-28 (basic/transports/streamable-http,
// Custom Headers from Tool Parameters): the tools wirecheck listed say
// which arguments of a tools/call the client mirrors into Mcp-Param
// headers, and how.

// listedTool is a tool of a tools/list result wirecheck sent: its valid
// x-mcp-header annotations, or why the definition is invalid.
type listedTool struct {
	params  []mcpheader.Param
	invalid string
}

// learnTools notes the tools of a tools/list result wirecheck sends; c.mu
// held.
func (c *Session) learnTools(msg []byte) {
	tools, ok := mcpheader.Listed(msg)
	if !ok {
		return
	}
	if c.tools == nil {
		c.tools = map[string]listedTool{}
	}
	for _, t := range tools {
		lt := listedTool{params: t.Params}
		if t.Err != nil {
			lt.invalid = t.Err.Error()
		}
		c.tools[t.Name] = lt
	}
}

// params judges the Mcp-Param headers of a tools/call of a tool wirecheck
// listed with valid annotations: each argument with a value is mirrored
// (CheckParamHeaders), Base64-encoded where it cannot travel plain
// (CheckParamEncoding), and a null one is not (CheckParamNull).
func (c *Session) params(r *http.Request, req mcpheader.Request) {
	c.mu.Lock()
	t, ok := c.tools[req.Name]
	c.mu.Unlock()
	if !ok || t.invalid != "" || len(t.params) == 0 {
		return
	}
	what := where(r, "tools/call "+req.Name)
	// One verdict per check and request: a report counts requests.
	var mirror, encoding, null *finding
	seen := map[string]bool{}
	note := func(f **finding, msg, expected, actual string) {
		if *f == nil {
			*f = &finding{msg, expected, actual}
		}
	}
	for _, p := range t.params {
		vals, has := r.Header[http.CanonicalHeaderKey(p.Header())]
		got := ""
		if has && len(vals) > 0 {
			got = vals[0]
		}
		if v, present := p.At(req.Arguments); present && v == nil {
			seen[CheckParamNull] = true
			if has {
				note(&null, "mirrored a null argument into "+p.Header(), "no "+p.Header()+" header (its argument is null)", what+fmt.Sprintf(" with %s: %q", p.Header(), got))
			}
			continue
		}
		raw, ok := p.Raw(req.Arguments)
		if !ok {
			continue
		}
		if !has {
			seen[CheckParamHeaders] = true
			note(&mirror, "had no "+p.Header()+" header for its argument "+strings.Join(p.Path, "."), p.Header()+": "+mcpheader.Encode(raw), what+" without it")
			continue
		}
		if !mcpheader.Plain(raw) {
			// A value that cannot travel plain is judged by its encoding
			// alone: sent as it is, what arrives is not what was sent.
			seen[CheckParamEncoding] = true
			if dec, ok := mcpheader.Decode(got); !strings.HasPrefix(got, "=?base64?") || !ok || dec != raw {
				note(&encoding, p.Header()+" carries a value that cannot travel plain without the Base64 sentinel encoding", p.Header()+": "+mcpheader.Encode(raw), what+fmt.Sprintf(" with %s: %q", p.Header(), got))
			}
			continue
		}
		seen[CheckParamHeaders] = true
		if dec, ok := mcpheader.Decode(got); !ok || !sameValue(dec, raw) {
			note(&mirror, p.Header()+" does not match its argument "+strings.Join(p.Path, "."), p.Header()+": "+mcpheader.Encode(raw), what+fmt.Sprintf(" with %s: %q", p.Header(), got))
		}
	}
	for _, j := range []struct {
		check string
		f     *finding
	}{{CheckParamHeaders, mirror}, {CheckParamEncoding, encoding}, {CheckParamNull, null}} {
		switch {
		case j.f != nil:
			c.check(j.check, verdict.Fail, j.f.msg, j.f.expected, j.f.actual)
		case seen[j.check]:
			c.check(j.check, verdict.Pass, "", "", "")
		}
	}
}

type finding struct{ msg, expected, actual string }

// sameValue compares a decoded header with the argument's string form;
// numbers by value (42 and 42.0 are one integer).
func sameValue(got, want string) bool {
	if got == want {
		return true
	}
	a, okA := new(big.Rat).SetString(got)
	b, okB := new(big.Rat).SetString(want)
	return okA && okB && a.Cmp(b) == 0
}
