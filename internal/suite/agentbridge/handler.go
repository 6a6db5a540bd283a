package agentbridge

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/wirecheck/wirecheck/internal/peer"
)

// Policy is how wirecheck, playing the Dart SDK, answers the backend's
// callback.request frames.
type Policy string

// Policies a user can pick with --param callback=POLICY.
const (
	// Allow answers can_use_tool with behavior allow (updated_input is the
	// tool's own input, as the Agent SDK expects) and hooks with continue.
	Allow Policy = "allow"
	// Deny answers can_use_tool with behavior deny and a message; hooks
	// are answered continue, so only the tool is refused.
	Deny Policy = "deny"
	// AllowUpdated answers allow with an updated_input whose command (when
	// the input has one) is replaced by UpdatedCommand.
	AllowUpdated Policy = "allow-updated"
	// Never leaves every callback unanswered.
	Never Policy = "never"
)

// Policies lists the policies, for messages.
var Policies = []Policy{Allow, Deny, AllowUpdated, Never}

// UpdatedCommand is the command an allow-updated answer substitutes; its
// output, UpdatedMarker, shows the backend ran the updated input.
const (
	UpdatedCommand = "echo " + UpdatedMarker
	UpdatedMarker  = "wirecheck-updated"
	// DenyMessage is the reason a deny answer gives.
	DenyMessage = "wirecheck denied this tool use (callback policy deny)"
	// BlockReason is the reason a hook answered with decision block gives.
	BlockReason = "wirecheck blocked this tool use (hook decision block)"
)

// ParsePolicy reads a --param callback value ("" is Allow).
func ParsePolicy(s string) (Policy, error) {
	if s == "" {
		return Allow, nil
	}
	for _, p := range Policies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("--param callback=%q: want one of allow, deny, allow-updated, never", s)
}

// Answerer answers callback.request frames by a policy and remembers every
// one it saw, with its answer, for the scenario to judge. Its Handle is a
// peer.Handler: the peer calls it from its reader goroutine.
type Answerer struct {
	Policy Policy
	// Block lists the hook events answered with decision block (and
	// BlockReason) instead of continue.
	Block map[string]bool

	mu   sync.Mutex
	seen []Callback
}

// Callback is one callback.request and the answer wirecheck gave (nil when
// it gave none).
type Callback struct {
	Request *peer.Inbound
	Answer  map[string]any
}

// NewAnswerer returns an answerer for the policy.
func NewAnswerer(p Policy) *Answerer { return &Answerer{Policy: p} }

// Handler is the default handler of the protocol: allow everything.
func Handler(in *peer.Inbound) []byte { return (&Answerer{Policy: Allow}).Handle(in) }

// Handle answers one request the backend sent.
func (a *Answerer) Handle(in *peer.Inbound) []byte {
	if typ, _ := in.Field("/type"); typ != "callback.request" {
		return nil
	}
	answer := a.answer(in)
	a.mu.Lock()
	a.seen = append(a.seen, Callback{Request: in, Answer: answer})
	a.mu.Unlock()
	if answer == nil {
		return nil
	}
	id, _ := in.Field("/id")
	sid, _ := in.Field("/session_id")
	b, err := json.Marshal(map[string]any{"type": "callback.response", "id": id, "session_id": sid, "payload": answer})
	if err != nil {
		return nil
	}
	return b
}

// answer is the payload of the callback.response, nil for none.
func (a *Answerer) answer(in *peer.Inbound) map[string]any {
	if a.Policy == Never {
		return nil
	}
	kind, _ := in.Field("/payload/callback_type")
	if kind == "hook" {
		if ev, _ := in.Field("/payload/hook_event"); a.Block[fmt.Sprint(ev)] {
			return map[string]any{"decision": "block", "reason": BlockReason}
		}
		return map[string]any{"continue": true}
	}
	input, _ := in.Field("/payload/tool_input")
	obj, isObj := input.(map[string]any)
	if !isObj {
		obj = map[string]any{}
	}
	switch a.Policy {
	case Deny:
		return map[string]any{"behavior": "deny", "message": DenyMessage}
	case AllowUpdated:
		upd := make(map[string]any, len(obj))
		for k, v := range obj {
			upd[k] = v
		}
		if _, has := upd["command"]; has {
			upd["command"] = UpdatedCommand
		}
		return map[string]any{"behavior": "allow", "updated_input": upd}
	}
	return map[string]any{"behavior": "allow", "updated_input": obj}
}

// Seen returns the callbacks seen so far.
func (a *Answerer) Seen() []Callback {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Callback(nil), a.seen...)
}
