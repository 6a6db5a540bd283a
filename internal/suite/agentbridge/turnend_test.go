package agentbridge_test

import (
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// observed lists the observations of a rule with the given verdict.
func observed(obs []verdict.Observation, rule string, v verdict.Verdict) []verdict.Observation {
	var out []verdict.Observation
	for _, o := range obs {
		if o.Rule == rule && o.Verdict == v {
			out = append(out, o)
		}
	}
	return out
}

// killed answers session.kill of s-1; created answers session.create with
// session s-1 (SDK session sdk-1) and the lines of its first turn.
func created(id string, turn ...string) []string {
	return append([]string{line(map[string]any{"type": "session.created", "id": id, "session_id": "s-1", "payload": map[string]any{"sdk_session_id": "sdk-1"}})}, turn...)
}

func killed(id string) []string {
	return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
}

var _ = Describe("the end of a turn", func() {
	cliDied := line(map[string]any{"type": "error", "session_id": "s-1", "payload": map[string]any{"code": "SDK_ERROR", "message": "Claude Code process exited with code 1"}})

	It("comes with an error of the session (its CLI died): one BRIDGE-STREAM-1 failure naming it, the rules that needed the turn skipped", func() {
		obs := runScenario("lifecycle", func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				return created(id, cliDied)
			case "session.kill":
				return killed(id)
			}
			return nil
		}, "turn_timeout", "2s")
		fails := observed(obs, "BRIDGE-STREAM-1", verdict.Fail)
		Expect(fails).To(HaveLen(1))
		Expect(fails[0].Message).To(And(ContainSubstring("error SDK_ERROR"), ContainSubstring("Claude Code process exited with code 1")))
		Expect(fails[0].Message).NotTo(ContainSubstring("within 2s"), "the wait ended at the error, not at the bound")
		Expect(observed(obs, "BRIDGE-STREAM-2", verdict.Skip)).To(HaveLen(1))
		Expect(observed(obs, "BRIDGE-SEND-1", verdict.Skip)).To(HaveLen(1))
		Expect(observed(obs, "BRIDGE-KILL-1", verdict.Pass)).NotTo(BeEmpty())
		for _, o := range obs {
			if o.Rule != "BRIDGE-STREAM-1" {
				Expect(o.Verdict).NotTo(Equal(verdict.Fail), "%s: %s", o.Rule, o.Message)
			}
		}
	})

	It("takes sdk.message frames without a session_id for the one open session, so its turn is judged", func() {
		bare := func(payload map[string]any) string {
			payload["session_id"] = "sdk-1"
			return line(map[string]any{"type": "sdk.message", "payload": payload})
		}
		obs := runScenario("callback-allow", func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				return created(id,
					bare(map[string]any{"type": "system", "subtype": "init"}),
					bare(map[string]any{"type": "assistant", "uuid": "u-1", "message": map[string]any{"content": []any{
						map[string]any{"type": "tool_use", "id": "tu-1", "name": "Bash", "input": map[string]any{"command": "echo hi"}}}}}),
					line(map[string]any{"type": "callback.request", "id": "cb-1", "session_id": "s-1", "payload": map[string]any{
						"callback_type": "can_use_tool", "tool_name": "Bash", "tool_input": map[string]any{"command": "echo hi"}, "tool_use_id": "tu-1"}}))
			case "callback.response":
				return []string{
					bare(map[string]any{"type": "user", "uuid": "u-2", "message": map[string]any{"content": []any{
						map[string]any{"type": "tool_result", "tool_use_id": "tu-1", "content": "hi", "is_error": false}}}}),
					bare(map[string]any{"type": "result", "subtype": "success"}),
				}
			case "session.kill":
				return killed(id)
			}
			return nil
		}, "turn_timeout", "2s")
		Expect(verdicts(obs, "BRIDGE-CB-ALLOW-1")).To(ConsistOf(verdict.Pass))
		Expect(observed(obs, "BRIDGE-SDK-1", verdict.Fail)).NotTo(BeEmpty(), "the missing session_id is still judged")
	})

	It("after a result before system/init and then silence, is that result, and the lane learns not to wait past it", func() {
		early := func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				return created(id,
					sdkLine(map[string]any{"type": "result", "subtype": "success"}),
					sdkLine(map[string]any{"type": "system", "subtype": "init"}),
					sdkLine(map[string]any{"type": "assistant", "uuid": "u-1", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": "hi"}}}}))
			case "session.send":
				return []string{sdkLine(map[string]any{"type": "result", "subtype": "success"})}
			case "session.kill":
				return killed(id)
			}
			return nil
		}
		causes := &scenario.Causes{}
		obs, err := runOn(newScripted(early), causes, "lifecycle", "turn_timeout", "3s")
		Expect(err).NotTo(HaveOccurred())
		fails := observed(obs, "BRIDGE-STREAM-2", verdict.Fail)
		Expect(fails).To(HaveLen(1))
		// The silence waited out is stated: the time waited, then the bound.
		Expect(fails[0].Message).To(MatchRegexp(`taken for the turn's end as nothing more of the session came within [0-9.]+m?s of silence \(300ms \(--timeout\)\)`))
		Expect(observed(obs, "BRIDGE-STREAM-1", verdict.Pass)).NotTo(BeEmpty())
		obs, err = runOn(newScripted(early), causes, "partial-messages", "turn_timeout", "3s")
		Expect(err).NotTo(HaveOccurred())
		skips := observed(obs, "BRIDGE-PARTIAL-1", verdict.Skip)
		Expect(skips).To(HaveLen(1))
		Expect(skips[0].Message).To(And(ContainSubstring("before its system/init"), ContainSubstring("not waited past"), ContainSubstring("scenario lifecycle")))
	})

	It("is no failure of BRIDGE-HOOK-1 when the backend died: the scenario ends with the crash", func() {
		t := newScripted(nil)
		t.serve = func(m map[string]any) []string {
			id, _ := m["id"].(string)
			if m["type"] == "session.create" {
				t.die = true
				return created(id)
			}
			return nil
		}
		obs, err := runOn(t, nil, "options", "turn_timeout", "2s")
		Expect(errors.Is(err, scenario.ErrGone)).To(BeTrue(), "%v", err)
		Expect(observed(obs, "BRIDGE-HOOK-1", verdict.Fail)).To(BeEmpty())
		Expect(observed(obs, "BRIDGE-OPTIONS-1", verdict.Pass)).To(HaveLen(1))
	})
})

var _ = Describe("a request type the backend leaves unanswered", func() {
	It("costs one --timeout per lane: a later one is not waited for, and its rule skips naming the wait that paid", func() {
		deaf := func(m map[string]any) []string {
			if m["type"] == "session.interrupt" {
				return nil
			}
			return askingBackend(sdkLine(map[string]any{"type": "result", "subtype": "success"}))(m)
		}
		causes := &scenario.Causes{}
		obs, err := runOn(newScripted(deaf), causes, "interrupt-kill")
		Expect(err).NotTo(HaveOccurred())
		Expect(failures(obs, "BRIDGE-INTERRUPT-1")).To(ConsistOf(ContainSubstring(`no answer to request id "interrupt-`)))
		obs, err = runOn(newScripted(deaf), causes, "interrupt-callback")
		Expect(err).NotTo(HaveOccurred())
		Expect(failures(obs, "BRIDGE-INTERRUPT-1")).To(BeEmpty())
		skips := observed(obs, "BRIDGE-INTERRUPT-1", verdict.Skip)
		Expect(skips).To(HaveLen(1))
		Expect(skips[0].Message).To(And(HavePrefix("not waited for the answer to request id"), ContainSubstring("in scenario interrupt-kill got no answer")))
	})
})

var _ = Describe("a callback.response for no pending callback left unanswered", func() {
	It("is waited for once: the next is not, and the late answer after an interrupt is no evidence of a callback held", func() {
		silent := func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "callback.response":
				return nil
			case "session.interrupt":
				return []string{line(map[string]any{"type": "session.interrupted", "id": id, "session_id": "s-1", "payload": map[string]any{}})}
			}
			return askingBackend(sdkLine(map[string]any{"type": "result", "subtype": "success"}))(m)
		}
		causes := &scenario.Causes{}
		obs, err := runOn(newScripted(silent), causes, "callback-unknown")
		Expect(err).NotTo(HaveOccurred())
		Expect(failures(obs, "BRIDGE-CB-NOTFOUND-1")).To(HaveLen(1))
		Expect(observed(obs, "BRIDGE-CB-NOTFOUND-1", verdict.Skip)).To(HaveLen(1))
		obs, err = runOn(newScripted(silent), causes, "interrupt-callback")
		Expect(err).NotTo(HaveOccurred())
		Expect(failures(obs, "BRIDGE-INTERRUPT-3")).To(BeEmpty())
		skips := observed(obs, "BRIDGE-INTERRUPT-3", verdict.Skip)
		Expect(skips).To(HaveLen(1))
		Expect(skips[0].Message).To(ContainSubstring("in scenario callback-unknown"))
	})
})

var _ = Describe("a session.send answered with an error", func() {
	It("ends the wait for its turn: BRIDGE-SEND-1 fails on the answer, not on a bound run out", func() {
		obs := runScenario("lifecycle", func(m map[string]any) []string {
			id, _ := m["id"].(string)
			switch m["type"] {
			case "session.create":
				return created(id, sdkLine(map[string]any{"type": "system", "subtype": "init"}), sdkLine(map[string]any{"type": "result", "subtype": "success"}))
			case "session.send":
				return []string{line(map[string]any{"type": "error", "id": id, "session_id": "s-1", "payload": map[string]any{"code": "SDK_ERROR", "message": "Claude Code process exited with code 1"}})}
			case "session.kill":
				return killed(id)
			}
			return nil
		}, "turn_timeout", "2s")
		Expect(failures(obs, "BRIDGE-SEND-1")).To(ConsistOf(ContainSubstring("was answered with an error instead of continuing its stream")))
	})
})

var _ = Describe("a turn after session.send that ends with an error of the session", func() {
	// turn_timeout is an hour: a wait that ran to the bound instead of
	// ending at the error would never let the scenario finish.
	It("ends the wait at the error, whatever the turn bound", func(ctx SpecContext) {
		n := 0
		done := make(chan []verdict.Observation, 1)
		go func() {
			defer GinkgoRecover()
			obs, err := runOn(newScripted(func(m map[string]any) []string {
				id, _ := m["id"].(string)
				sid, _ := m["session_id"].(string)
				died := line(map[string]any{"type": "error", "session_id": sid, "payload": map[string]any{"code": "SDK_ERROR", "message": "Claude Code process exited with code 1"}})
				switch m["type"] {
				case "session.create":
					n++
					sid = fmt.Sprintf("s-%d", n)
					return []string{line(map[string]any{"type": "session.created", "id": id, "session_id": sid, "payload": map[string]any{"sdk_session_id": "sdk-" + sid}}),
						line(map[string]any{"type": "sdk.message", "session_id": sid, "payload": map[string]any{"type": "system", "subtype": "init", "session_id": "sdk-" + sid}}),
						line(map[string]any{"type": "sdk.message", "session_id": sid, "payload": map[string]any{"type": "result", "subtype": "success", "session_id": "sdk-" + sid}})}
				case "session.send":
					return []string{died}
				case "query.call":
					return []string{line(map[string]any{"type": "query.result", "id": id, "session_id": sid, "payload": map[string]any{"success": true, "result": []any{}}})}
				case "session.kill":
					return []string{line(map[string]any{"type": "session.killed", "id": id, "session_id": sid, "payload": map[string]any{}})}
				}
				return nil
			}), nil, "sessions", "turn_timeout", "1h")
			Expect(err).NotTo(HaveOccurred())
			done <- obs
		}()
		select {
		case obs := <-done:
			Expect(failures(obs, "BRIDGE-SESSIONS-2")).To(ConsistOf(ContainSubstring("with error SDK_ERROR for the session")))
		case <-ctx.Done():
			Fail("the scenario still waited for the turn after the error ended it")
		}
	}, SpecTimeout(2*time.Minute))
})
