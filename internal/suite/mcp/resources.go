package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

func resources(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	rules := []string{"MCP-RESOURCES-3", "MCP-RESOURCES-4", "MCP-RESOURCES-5", "MCP-RESOURCES-6"}
	updates := judgeOf(e).seen("notifications/resources/updated")
	defer func() {
		switch {
		case s.modern:
			skipAll(e, "revision "+s.requested+" sends resources/updated on subscriptions/listen streams (not covered yet)", "MCP-RESOURCES-7", "MCP-RESOURCES-8")
		case judgeOf(e).seen("notifications/resources/updated") == updates:
			skipAll(e, "no notifications/resources/updated arrived during this scenario (wirecheck subscribed to a resource, when declared, and sent a request after it)", "MCP-RESOURCES-7", "MCP-RESOURCES-8")
		}
	}()
	items, in, err := listAll(e, s, "resources/list", "resources", "MCP-RESOURCES-2")
	if err != nil {
		return err
	}
	if !s.has("resources") {
		if in != nil && isResult(in) && len(items) > 0 {
			e.Fail("MCP-RESOURCES-1", in.Seq, "the server lists resources but did not declare the resources capability", "capabilities.resources", "capabilities "+show(s.caps))
		} else {
			e.Skip("MCP-RESOURCES-1", "the server does not declare resources")
		}
		for _, r := range rules {
			e.Skip(r, "the server does not declare the resources capability")
		}
		return nil
	}
	e.Pass("MCP-RESOURCES-1", in.Seq)
	read := 0
	var first string
	for _, it := range items {
		m, _ := it.(map[string]any)
		uri, _ := m["uri"].(string)
		if uri == "" || read >= 5 {
			continue
		}
		read++
		if first == "" {
			first = uri
		}
		r, err := s.call(e, "resources/read", map[string]any{"uri": uri})
		if unjudged(err) {
			e.Skip("MCP-RESOURCES-3", err.Error())
			continue
		}
		if err != nil {
			return err
		}
		if !isResult(r) {
			e.Fail("MCP-RESOURCES-3", r.Seq, "reading the listed resource "+uri+" failed", "a ReadResourceResult", string(r.Raw))
		} else {
			e.Pass("MCP-RESOURCES-3", r.Seq)
		}
	}
	if read == 0 {
		e.Skip("MCP-RESOURCES-3", "the server lists no resource to read")
	}
	t, err := s.call(e, "resources/templates/list", map[string]any{})
	if err != nil {
		return err
	}
	if e.Unimplemented(t) {
		e.Skip("MCP-RESOURCES-4", "the server does not implement resources/templates/list")
	} else if !isResult(t) {
		e.Fail("MCP-RESOURCES-4", t.Seq, "resources/templates/list failed", "a ListResourceTemplatesResult", string(t.Raw))
	}
	unk, err := s.call(e, "resources/read", map[string]any{"uri": "wirecheck://no/such/resource"})
	if err != nil {
		return err
	}
	// 2026-07-28 moved "Resource not found" from -32002 to -32602.
	want := int64(-32002)
	if e.Protocol.Has(s.version, revtable.ResourceNotFoundInvalidParams) {
		want = -32602
	}
	if c, ok := errorCode(unk); ok && c == want {
		e.Pass("MCP-RESOURCES-5", unk.Seq)
	} else {
		e.Fail("MCP-RESOURCES-5", unk.Seq, fmt.Sprintf("reading an unknown resource was not answered with error %d", want), fmt.Sprintf("error code %d (Resource not found)", want), string(unk.Raw))
	}
	if s.modern {
		e.Skip("MCP-RESOURCES-6", "revision "+s.requested+" replaced resources/subscribe with subscriptions/listen")
	} else if !s.capFlag("resources", "subscribe") || first == "" {
		e.Skip("MCP-RESOURCES-6", "the server does not declare resources.subscribe, or lists no resource")
	} else if err := s.subscribeOnce(e, first); err != nil {
		return err
	}
	s.settle(e, 20e6)
	return nil
}

// subscribeOnce subscribes to uri, gives the server a round trip to send
// an update of it, and unsubscribes. The frame judge holds the
// subscription from the subscribe request to the unsubscribe's answer
// (judgeUpdated).
func (s *session) subscribeOnce(e *scenario.Env, uri string) error {
	j := judgeOf(e)
	before := j.seen("notifications/resources/updated")
	r, err := s.call(e, "resources/subscribe", map[string]any{"uri": uri})
	if err != nil {
		return err
	}
	if !isResult(r) {
		e.Fail("MCP-RESOURCES-6", r.Seq, "resources/subscribe "+uri+" failed although the server declares resources.subscribe", "an empty result", string(r.Raw))
		return nil
	}
	e.Pass("MCP-RESOURCES-6", r.Seq)
	// An update the subscription sets off comes before the answer to a
	// later request (stdin is read in order) or just after it; updates on
	// a timer of their own are judged whenever they come.
	if j.seen("notifications/resources/updated") == before {
		if _, err := s.call(e, "ping", nil); err != nil {
			return err
		}
		s.settle(e, lateAnswer)
	}
	r, err = s.call(e, "resources/unsubscribe", map[string]any{"uri": uri})
	if err != nil {
		return err
	}
	if isResult(r) {
		e.Pass("MCP-RESOURCES-6", r.Seq)
		// An update sent after the unsubscribe was answered is judged in
		// this scenario (MCP-RESOURCES-8), not in whichever runs next
		// (none, when the scenario runs alone or in a session of its
		// own): on one ordered stream (stdio, the legacy HTTP+SSE
		// stream) it comes before the answer to a later request.
		if _, err := s.call(e, "ping", nil); err != nil {
			return err
		}
	} else {
		e.Fail("MCP-RESOURCES-6", r.Seq, "resources/unsubscribe "+uri+" failed although the server declares resources.subscribe", "an empty result", string(r.Raw))
	}
	return nil
}

// resSub is a resource subscription as the frame judge follows it: from
// the subscribe request (dropped if refused) to the unsubscribe's answer,
// its transcript line until (0 while subscribed), and the stream that
// answer came on (orderedStream).
type resSub struct {
	until       int
	untilStream string
}

// judgeUpdated: a resources/updated notification comes from a server that
// declared resources.subscribe, for a resource wirecheck subscribed to (or
// a sub-resource of it), between the subscribe request and the answer to
// the unsubscribe. j.mu is held.
func (j *judge) judgeUpdated(in *peer.Inbound, v peer.Verdicts) {
	if m, _ := j.caps["resources"].(map[string]any); m["subscribe"] != true {
		v.Fail("MCP-RESOURCES-7", in.Seq, "the server sent notifications/resources/updated but did not declare resources.subscribe",
			"capabilities.resources.subscribe: true in the initialize result", "capabilities "+show(j.caps))
		v.Skip("MCP-RESOURCES-8", "the server sent an update without declaring resources.subscribe (MCP-RESOURCES-7)")
		return
	}
	v.Pass("MCP-RESOURCES-7", in.Seq)
	uri, _ := field(in, "/params/uri").(string)
	ended, endedOn := 0, ""
	for sub, at := range j.resSubs {
		if uri != sub && !strings.HasPrefix(uri, sub) {
			continue
		}
		if at.until == 0 || in.Seq < at.until {
			v.Pass("MCP-RESOURCES-8", in.Seq)
			return
		}
		if in.Seq > at.until {
			ended, endedOn = at.until, at.untilStream
		}
	}
	if ended > 0 && orderedStream(in) != endedOn {
		// Read from another stream than the unsubscribe's answer, an
		// update may have been written before that answer.
		v.Skip("MCP-RESOURCES-8", fmt.Sprintf("an update of %s was read after the unsubscribe's answer (transcript line %d), but over Streamable HTTP it may have been written before it, on another stream", uri, ended))
		return
	}
	if ended > 0 {
		v.Fail("MCP-RESOURCES-8", in.Seq, fmt.Sprintf("an update of %s after the unsubscribe was answered (transcript line %d)", uri, ended),
			"no update of a resource after its unsubscribe", show(field(in, "/params")))
		return
	}
	v.Fail("MCP-RESOURCES-8", in.Seq, "an update of "+uri+", which wirecheck never subscribed to",
		"updates only of subscribed resources ("+strings.Join(j.subscribed(), ", ")+")", show(field(in, "/params")))
}

// subscribed lists the URIs wirecheck subscribed to; j.mu is held.
func (j *judge) subscribed() []string {
	var out []string
	for u := range j.resSubs {
		out = append(out, u)
	}
	if out == nil {
		return []string{"none"}
	}
	slices.Sort(out)
	return out
}
