package sondeserve

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// judge is sonde-serve's frame judge (peer.Judge) for one server process:
// SONDE-EMPTY-1, "Empty lines are ignored.", judged by order rather than
// by a wait. A server reads stdin in order and answers in order, so an
// answer to the empty lines comes, if at all, before the answer to any
// request sent after them: every answer that is no request's until then
// is theirs, however late it comes. A silence window would judge the
// server's speed instead (a loaded or slow server answering after it went
// unjudged). The peer shows the judge every frame on every path (run,
// replay, fuzz), so the rule is judged the same on each.
type judge struct {
	mu sync.Mutex
	// empties counts the empty lines sent since the window last closed.
	empties int
	// fences are the id keys of the requests sent after them: the answer
	// to one closes the window.
	fences map[string]bool
	// answers counts the answers to the empty lines seen in the window.
	answers int
}

// JudgeRules are the rules the frame judge decides.
var JudgeRules = []string{"SONDE-EMPTY-1"}

// NewJudge makes the frame judge of one sonde-serve process.
func NewJudge(*spec.Protocol) peer.Judge { return &judge{} }

// emptyLines counts the lines of raw if each is empty (raw is only
// newlines): a line of spaces is no empty line every reader agrees on (a
// reader that skips only "" answers it as malformed JSON), so it is not
// judged here.
func emptyLines(raw []byte) int {
	if len(raw) == 0 || len(bytes.Trim(raw, "\n")) > 0 {
		return 0
	}
	return len(raw)
}

func (j *judge) Sent(raw []byte, c *peer.Call) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if c == nil {
		j.empties += emptyLines(raw)
		return
	}
	if j.empties > 0 {
		if j.fences == nil {
			j.fences = map[string]bool{}
		}
		j.fences[c.Key] = true
	}
}

func (j *judge) Received(in *peer.Inbound, method string, v peer.Verdicts) {
	if in.Kind == nil || in.Kind.Role != spec.RoleResponse {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.empties == 0 {
		return
	}
	id, hasID := in.Field("/id")
	switch {
	case method != "" && hasID && id != nil && j.fences[peer.Key(id)]:
		// A request sent after the empty lines is answered: they were
		// read before it, and what they were answered is known.
		if j.answers == 0 {
			v.Pass("SONDE-EMPTY-1", in.Seq)
		}
		j.empties, j.answers, j.fences = 0, 0, nil
	case method == "" && !in.Invalid && id == nil:
		// No request's answer, and no raw line owed one claimed it: the
		// answer of an empty line (the only lines that carry no id).
		j.answers++
		v.Fail("SONDE-EMPTY-1", in.Seq,
			fmt.Sprintf("an answer to an empty line (%d sent), before the answer to the request sent after them", j.empties),
			"no answer to an empty line (ignored)", excerpt(in.Raw))
	}
}

func excerpt(raw []byte) string {
	const max = 200
	if len(raw) > max {
		return string(raw[:max]) + "…"
	}
	return string(raw)
}
