package fuzz

import (
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// drawFrame draws one of the fuzz model's unasked frames (spec.FuzzFrame)
// and how many times in a row it goes: what a peer that asks (a client
// under test) is sent besides the answers it asked for. The frames are
// notifications or responses, so nothing is owed back; the probe after
// them asks whether the target still answers.
func (s *sequence) drawFrame() *action {
	pr := s.pr
	fr := rapid.SampledFrom(s.c.cfg.Protocol.Fuzz.Frames).Draw(s.t, "frame")
	n := 1
	if fr.Repeat > 1 {
		n = rapid.IntRange(1, fr.Repeat).Draw(s.t, "repeat")
	}
	shape := fr.Label
	if n > 1 {
		shape = fmt.Sprintf("%s, %d in a row", fr.Label, n)
	}
	var result any
	if g := s.c.results[fr]; g != nil {
		result = g.Draw(s.t, "result")
	}
	return &action{shape, func() error {
		var steps []scenario.Step
		for range n {
			v := fill(fr.Frame, "", nil, pr)
			if m, ok := v.(map[string]any); ok && result != nil {
				m["result"] = result
			}
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			line := string(b)
			// Answered by nothing: an answer would be a stray, judged so.
			steps = append(steps, scenario.Step{SendLine: &line, Answered: new(bool)})
		}
		return pr.do(append(steps, pr.probeStep())...)
	}}
}

// asked is the id of the last request the target sent on this process
// ($asked), the one a second response answers again; null before any.
func (pr *proc) asked() any {
	const window = 64
	for to := pr.rec.Len(); to > 0; to -= window {
		es := pr.rec.Slice(max(0, to-window), to)
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].Dir != transcript.Received {
				continue
			}
			var m map[string]any
			if json.Unmarshal([]byte(es[i].Text), &m) != nil {
				continue
			}
			if _, isReq := m["method"]; !isReq {
				continue
			}
			if id, ok := m["id"]; ok && id != nil {
				return id
			}
		}
	}
	return nil
}

// disturbances are what the process's transport can do below the
// messages (transport.Disturber), none for most.
func (pr *proc) disturbances() []string {
	if d, ok := pr.p.Transport().(transport.Disturber); ok {
		return d.Disturbances()
	}
	return nil
}
