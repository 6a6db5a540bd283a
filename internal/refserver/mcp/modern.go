package mcp

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
)

// What revision 2026-07-28 adds: subscriptions/listen, multi round-trip
// requests (the ask-client tool and the ask prompt), per-request log
// levels.

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// listen opens a subscription: it acknowledges the notification types it
// honours (all of them: it declares every listChanged and subscribe), then
// sends one resources/updated per subscribed resource at once, so a
// client sees the stream work.
func (s *server) listen(id any, p obj) {
	if s.listenTasksRefused(id, p) {
		return
	}
	filter, _ := p["notifications"].(obj)
	agreed := obj{}
	for _, k := range []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"} {
		if filter[k] == true {
			agreed[k] = true
		}
	}
	uris, _ := filter["resourceSubscriptions"].([]any)
	if len(uris) > 0 {
		agreed["resourceSubscriptions"] = uris
	}
	s.mu.Lock()
	s.subs[s.key(id)] = uris
	s.mu.Unlock()
	if s.f("listen-no-ack") {
		// Opened, but silent: neither acknowledgement nor updates.
		return
	}
	tag := func() obj { return obj{metaSubscription: id} }
	updates := func() {
		for _, u := range uris {
			params := obj{"uri": u, "_meta": tag()}
			if s.f("listen-no-subscription-id") {
				delete(params, "_meta")
			}
			s.notify("notifications/resources/updated", params)
		}
	}
	if s.f("listen-update-first") {
		updates()
	}
	s.notify("notifications/subscriptions/acknowledged", obj{"_meta": tag(), "notifications": agreed})
	if !s.f("listen-update-first") {
		updates()
	}
	if s.f("listen-unrequested") {
		s.notify("notifications/tools/list_changed", obj{"_meta": tag()})
	}
}

// cancelled ends the subscription a notifications/cancelled names; other
// requests finish too fast to be cancelled.
func (s *server) cancelled(p obj) {
	id := p["requestId"]
	s.mu.Lock()
	uris, open := s.subs[s.key(id)]
	delete(s.subs, s.key(id))
	if open && s.f("listen-late-notification") {
		// One more update, sent just after the answer to the next request
		// (lateUpdate).
		u := any("wirecheck://docs/readme")
		if len(uris) > 0 {
			u = uris[0]
		}
		s.late = obj{"uri": u, "_meta": obj{metaSubscription: id}}
		s.lateEx = s.origin
	}
	s.mu.Unlock()
	if open && s.f("listen-answer-cancel") {
		s.result(id, obj{"_meta": obj{metaSubscription: id}})
	}
}

// lateUpdate sends the update the fault listen-late-notification keeps
// for a cancelled subscription, once: after the server has answered a
// request it read after the cancellation.
func (s *server) lateUpdate() {
	s.mu.Lock()
	params, ex := s.late, s.lateEx
	s.late, s.lateEx = nil, nil
	s.mu.Unlock()
	if params != nil {
		// Written for the subscription, not the request just answered.
		s.from(ex).notify("notifications/resources/updated", params)
	}
}

// logFor sends a log notification for a 2026-07-28 request: only when its
// _meta asks for a level, and only at or above it.
func (s *server) logFor(p obj, level, text string) {
	if s.v("bare") {
		return // it declares no logging
	}
	meta, _ := p["_meta"].(obj)
	want, _ := meta[metaLogLevel].(string)
	if want == "" {
		if !s.f("log-always") {
			return
		}
		want = level
	}
	if slices.Index(levels, level) < slices.Index(levels, want) {
		return
	}
	s.notify("notifications/message", obj{"level": level, "logger": "reference", "data": text})
}

// clientCaps are the capabilities a 2026-07-28 request declares.
func clientCaps(p obj) obj {
	meta, _ := p["_meta"].(obj)
	c, _ := meta[metaCaps].(obj)
	return c
}

// inputState is what the ask-client tool keeps in requestState between
// rounds: the inputs still to come and those received.
type inputState struct {
	Ask []string `json:"ask"`
	Got []string `json:"got"`
}

func encodeState(st inputState) string {
	b, _ := json.Marshal(st)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeState(v any) (inputState, bool) {
	var st inputState
	str, ok := v.(string)
	if !ok {
		return st, false
	}
	b, err := base64.RawURLEncoding.DecodeString(str)
	if err != nil || json.Unmarshal(b, &st) != nil || len(st.Ask) == 0 {
		return st, false
	}
	return st, true
}

// inputRequest is what the server may ask of the client, by key.
func inputRequest(key string) obj {
	switch key {
	case "llm":
		return obj{"method": "sampling/createMessage", "params": obj{"messages": []any{obj{"role": "user", "content": text("Say hello")}}, "maxTokens": 20}}
	case "root":
		return obj{"method": "roots/list", "params": obj{}}
	default:
		return obj{"method": "elicitation/create", "params": obj{"mode": "form", "message": "Your name?",
			"requestedSchema": obj{"type": "object", "properties": obj{"name": obj{"type": "string"}}}}}
	}
}

// inputCaps maps the inputs to the capability each needs.
var inputCaps = []struct{ key, cap string }{{"llm", "sampling"}, {"root", "roots"}, {"name", "elicitation"}}

// rpcError is an error answer.
type rpcError struct {
	code int
	msg  string
	data obj
}

// askInput is the ask-client tool in 2026-07-28: a multi round-trip
// request. The first round asks for what the request's capabilities allow
// (sampling, roots, elicitation) and keeps the keys in requestState; a
// retry completes when inputResponses hold every key, and asks again for
// the missing ones otherwise. No state lives in the server.
func (s *server) askInput(p obj) (obj, *rpcError) {
	if e := s.checkResponses(p); e != nil {
		return nil, e
	}
	if s.f("mrtr-empty") {
		return obj{"resultType": "input_required"}, nil
	}
	responses, _ := p["inputResponses"].(obj)
	var st inputState
	if raw, has := p["requestState"]; has {
		var ok bool
		if st, ok = decodeState(raw); !ok {
			return nil, &rpcError{-32602, "Invalid params: requestState does not verify", nil}
		}
		var missing []string
		for _, k := range st.Ask {
			if _, isObj := responses[k].(obj); isObj {
				st.Got = append(st.Got, k)
			} else {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			return obj{"content": []any{text("the client answered " + strings.Join(st.Got, ", "))}}, nil
		}
		if s.f("mrtr-missing-error") {
			return nil, &rpcError{-32602, "Invalid params: inputResponses lack " + strings.Join(missing, ", "), nil}
		}
		st.Ask = missing
	} else {
		if e := s.askCapability(p); e != nil {
			return nil, e
		}
		caps := clientCaps(p)
		for _, ic := range inputCaps {
			if _, declared := caps[ic.cap]; declared || s.f("mrtr-undeclared") {
				st.Ask = append(st.Ask, ic.key)
			}
		}
	}
	reqs := obj{}
	for _, k := range st.Ask {
		reqs[k] = inputRequest(k)
	}
	if s.f("mrtr-bad-request") {
		reqs["check"] = obj{"method": "ping"}
	}
	return obj{"resultType": "input_required", "inputRequests": reqs, "requestState": encodeState(st)}, nil
}

// checkResponses is the error of a retry whose inputResponses is no
// InputResponses object (the fault mrtr-invalid-accepted takes it for
// answers to everything instead, the variant mrtr-invalid-reasks for none),
// or (the fault mrtr-unexpected-refused) holds a key
// of none of the inputs this server asks; nil otherwise.
func (s *server) checkResponses(p obj) *rpcError {
	raw, has := p["inputResponses"]
	if !has {
		return nil
	}
	responses, isObj := raw.(obj)
	if !isObj {
		if s.v("mrtr-invalid-reasks") {
			delete(p, "inputResponses")
			return nil
		}
		if s.f("mrtr-invalid-accepted") {
			// Taken for answers to every input it asks.
			all := obj{}
			for _, ic := range inputCaps {
				all[ic.key] = obj{}
			}
			p["inputResponses"] = all
			return nil
		}
		return &rpcError{-32602, "Invalid params: inputResponses is not an object", nil}
	}
	if s.f("mrtr-unexpected-refused") {
		for k := range responses {
			if !slices.ContainsFunc(inputCaps, func(ic struct{ key, cap string }) bool { return ic.key == k }) {
				return &rpcError{-32602, "Invalid params: inputResponses hold " + k + ", never asked", nil}
			}
		}
	}
	return nil
}

// askCapability is the error of a first round of ask-client whose
// request declares none of the capabilities it asks for, nil otherwise.
// It is known before any work starts, so the call answers it alone (JSON,
// with the 400 a -32021 travels with over HTTP), not after progress on a
// stream opened 200.
func (s *server) askCapability(p obj) *rpcError {
	if _, retry := p["requestState"]; retry || s.f("mrtr-empty") || s.f("mrtr-undeclared") {
		return nil
	}
	caps := clientCaps(p)
	for _, ic := range inputCaps {
		if _, declared := caps[ic.cap]; declared {
			return nil
		}
	}
	return &rpcError{-32021, "Server requires the sampling, roots or elicitation capability for this request",
		obj{"requiredCapabilities": obj{"elicitation": obj{}}}}
}

// askPrompt is the ask prompt in 2026-07-28: it elicits a name, keeping
// no requestState (the retry carries everything in inputResponses).
func (s *server) askPrompt(p obj) (obj, *rpcError) {
	if e := s.checkResponses(p); e != nil {
		return nil, e
	}
	responses, _ := p["inputResponses"].(obj)
	if r, isObj := responses["name"].(obj); isObj {
		content, _ := r["content"].(obj)
		who, _ := content["name"].(string)
		if r["action"] != "accept" || who == "" {
			who = "whoever you are"
		}
		return obj{"description": "a greeting", "messages": []any{obj{"role": "user", "content": text("Say hello to " + who)}}}, nil
	}
	if _, retry := p["inputResponses"]; retry && s.f("mrtr-missing-error") {
		return nil, &rpcError{-32602, "Invalid params: inputResponses lack name", nil}
	}
	if _, declared := clientCaps(p)["elicitation"]; !declared && !s.f("mrtr-undeclared") {
		return nil, &rpcError{-32021, "Server requires the elicitation capability for this prompt", obj{"requiredCapabilities": obj{"elicitation": obj{}}}}
	}
	return obj{"resultType": "input_required", "inputRequests": obj{"name": inputRequest("name")}}, nil
}

// askURI is the resource whose read is a multi round-trip request in
// 2026-07-28 (listed in that revision only).
const askURI = "wirecheck://ask/roots"

// askRoots reads askURI in 2026-07-28: it asks for the client's roots,
// keeping no requestState (like the ask prompt), and once inputResponses
// hold them returns a content naming them. It returns the content, or the
// InputRequiredResult, or an error (-32021 when roots is not declared).
func (s *server) askRoots(p obj) (obj, obj, *rpcError) {
	if e := s.checkResponses(p); e != nil {
		return nil, nil, e
	}
	responses, _ := p["inputResponses"].(obj)
	if r, isObj := responses["root"].(obj); isObj {
		roots, _ := r["roots"].([]any)
		var got []string
		for _, x := range roots {
			m, _ := x.(obj)
			if u, _ := m["uri"].(string); u != "" {
				got = append(got, u)
			}
		}
		return obj{"uri": askURI, "mimeType": "text/plain", "text": "the client's roots: " + strings.Join(got, ", ")}, nil, nil
	}
	if _, declared := clientCaps(p)["roots"]; !declared && !s.f("mrtr-undeclared") && !s.f("mrtr-read-undeclared") {
		return nil, nil, &rpcError{-32021, "Server requires the roots capability for this resource", obj{"requiredCapabilities": obj{"roots": obj{}}}}
	}
	return nil, obj{"resultType": "input_required", "inputRequests": obj{"root": inputRequest("root")}}, nil
}

// failWith answers an rpcError.
func (s *server) failWith(id any, e *rpcError) {
	err := obj{"code": e.code, "message": e.msg}
	if e.data != nil {
		err["data"] = e.data
	}
	s.write(obj{"jsonrpc": "2.0", "id": id, "error": err})
}
