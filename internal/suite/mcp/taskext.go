package mcp

import (
	"fmt"
	"reflect"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663), judged
// in 2026-07-28 sessions of a server that declares it. Task creation is
// the server's choice, per request: wirecheck calls the listed tools
// declaring the extension in _meta until one answers with a task, and
// judges that task's life.

const tasksExt = "io.modelcontextprotocol/tasks"

var taskExtRules = []string{"MCP-TASKEXT-1", "MCP-TASKEXT-2", "MCP-TASKEXT-3", "MCP-TASKEXT-4", "MCP-TASKEXT-5", "MCP-TASKEXT-6",
	"MCP-TASKEXT-7", "MCP-TASKEXT-8", "MCP-TASKEXT-9", "MCP-TASKEXT-10", "MCP-TASKEXT-11", "MCP-TASKEXT-12", "MCP-TASKEXT-13",
	"MCP-TASKEXT-14", "MCP-TASKEXT-15"}

// taskProbes bounds the tools called to find one the server makes a task
// of.
const taskProbes = 8

// unaskedInput is an inputResponses key no task asked for: a server
// "SHOULD ignore" it (#task-update-requests), so tasks/update of it is
// acknowledged by a server that does.
const unaskedInput = "wirecheck-unasked"

func taskExtScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name: "tasks-extension",
		Title: "2026-07-28, a server declaring the tasks extension: a tool call declaring it answered with a task, polled with tasks/get until it ends, " +
			"compared with the call without the extension; tasks/update and tasks/cancel acknowledged; requests without the extension refused -32021; unknown taskIds -32602",
		Rules: taskExtRules,
		Run:   taskExtension,
	}
}

// extVerdicts records the observations of the scenario, so the rules it
// never reached are skipped with why at the end.
type extVerdicts struct {
	e    *scenario.Env
	seen map[string]bool
}

func (v *extVerdicts) pass(rule string, seq int) {
	v.seen[rule] = true
	v.e.Pass(rule, seq)
}

func (v *extVerdicts) fail(rule string, in *peer.Inbound, what, want string) {
	v.seen[rule] = true
	seq, got := -1, "nothing"
	if in != nil {
		seq, got = in.Seq, string(in.Raw)
	}
	v.e.Fail(rule, seq, what, want, got)
}

func (v *extVerdicts) skip(rule, why string) {
	if !v.seen[rule] {
		v.seen[rule] = true
		v.e.Skip(rule, why)
	}
}

func (v *extVerdicts) skipRest(why string, rules ...string) {
	for _, r := range rules {
		v.skip(r, why)
	}
}

// withTasks are the client capabilities of a request declaring the
// extension.
func withTasks() map[string]any {
	c := modernCaps()
	c["extensions"] = map[string]any{tasksExt: map[string]any{}}
	return c
}

var (
	declaring = sendOpts{caps: withTasks()}
	plain     = sendOpts{}
)

// isTaskAnswer reports whether a tools/call answer is a task: resultType
// "task", or a task's own fields without a tool result's content.
func isTaskAnswer(in *peer.Inbound) bool {
	if field(in, "/result/resultType") == "task" {
		return true
	}
	_, id := field(in, "/result/taskId").(string)
	_, st := field(in, "/result/status").(string)
	_, content := in.Field("/result/content")
	return id && st && !content
}

func taskExtension(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if !s.modern {
		skipAll(e, s.notModern(e), taskExtRules...)
		return nil
	}
	exts, _ := s.caps["extensions"].(map[string]any)
	if _, declared := exts[tasksExt]; !declared {
		skipAll(e, "the server does not declare the extension "+tasksExt, taskExtRules...)
		return nil
	}
	v := &extVerdicts{e: e, seen: map[string]bool{}}
	defer v.skipRest("nothing the server answered exercised it", taskExtRules...)
	if err := unknownTaskExt(e, s, v); err != nil {
		return err
	}
	name, args, created, err := findTaskTool(e, s)
	if err != nil || created == nil {
		if err == nil {
			v.skipRest(fmt.Sprintf("no call of the first %d listed tools declaring %s was answered with a task (creating one is the server's choice)", taskProbes, tasksExt),
				"MCP-TASKEXT-1", "MCP-TASKEXT-2", "MCP-TASKEXT-3", "MCP-TASKEXT-4", "MCP-TASKEXT-5", "MCP-TASKEXT-6", "MCP-TASKEXT-7",
				"MCP-TASKEXT-8", "MCP-TASKEXT-9", "MCP-TASKEXT-10", "MCP-TASKEXT-13", "MCP-TASKEXT-14", "MCP-TASKEXT-15")
		}
		return err
	}
	if field(created, "/result/resultType") == "task" {
		v.pass("MCP-TASKEXT-3", created.Seq)
	} else {
		v.fail("MCP-TASKEXT-3", created, "the call of "+show(name)+" was answered with a task (taskId, status, no content) whose resultType is "+show(field(created, "/result/resultType")),
			"resultType \"task\"")
	}
	id, _ := field(created, "/result/taskId").(string)
	if id == "" {
		v.skipRest("the task answer carries no taskId", taskExtRules...)
		return nil
	}
	// At once: the task exists before its CreateTaskResult is sent.
	first, err := s.callWith(e, "tasks/get", map[string]any{"taskId": id}, declaring)
	if err != nil {
		return err
	}
	if c, ok := errorCode(first); ok && c == -32602 {
		v.fail("MCP-TASKEXT-5", first, "tasks/get of the task "+show(id)+", sent as soon as its CreateTaskResult came, was refused -32602", "the task")
	} else {
		if isResult(first) {
			v.pass("MCP-TASKEXT-5", first.Seq)
		}
		judgeGot(v, first, id)
	}
	clock, err := newTaskClock(e, created, time.Now(), "/result/ttlMs", "/result/pollIntervalMs")
	if err != nil {
		return err
	}
	judgeTaskName(e, s, v, first, id)
	if err := updateTask(e, s, v, id); err != nil {
		return err
	}
	final, err := pollTask(e, s, v, id, clock)
	if err != nil {
		return err
	}
	if err := compareSync(e, s, v, name, args, final, clock); err != nil {
		return err
	}
	// After the comparison: a server serving them would cancel the task.
	if err := ungated(e, s, v, id); err != nil {
		return err
	}
	if final != nil && terminal(str(field(final, "/result/status"))) {
		if err := cancelTask(e, s, v, id, "finished"); err != nil {
			return err
		}
	}
	// A second task, cancelled while it may still work.
	in, err := s.callWith(e, "tools/call", map[string]any{"name": name, "arguments": args}, declaring)
	if err != nil {
		if unjudged(err) {
			return nil
		}
		return err
	}
	if id2, ok := field(in, "/result/taskId").(string); ok && isTaskAnswer(in) {
		if err := listenUndeclared(e, s, v, id2); err != nil {
			return err
		}
		return cancelTask(e, s, v, id2, "new")
	}
	return nil
}

// judgeTaskName sends over HTTP the tasks/get just served again, its
// Mcp-Name naming another task: the headers disagree with the body, which
// the core's Server Validation refuses (MCP-TASKEXT-15), lest a balancer
// routing on the header and the server reading the body act on two tasks.
func judgeTaskName(e *scenario.Env, s *session, v *extVerdicts, first *peer.Inbound, id string) {
	x, ok := exchangerOf(e)
	if !ok || x.Kind() != "http" {
		// The runner skips it by the spec's transports; a probe over the
		// legacy transport would be answered on the session's stream.
		v.seen["MCP-TASKEXT-15"] = true
		for _, r := range applying(e, []string{"MCP-TASKEXT-15"}) {
			e.Skip(r, "routing headers are Streamable HTTP's; this run speaks another transport")
		}
		return
	}
	if !isResult(first) {
		v.skip("MCP-TASKEXT-15", "tasks/get of the task with its headers as the body says was not served: nothing to set a mismatch against")
		return
	}
	body := rawJSON(request("tasks/get", map[string]any{"taskId": id, "_meta": metaWith(s.requested, withTasks())}))
	what := "tasks/get of the task " + show(id) + " with Mcp-Name naming another task"
	res, seq := exchange(e, x, what, withHeaders(body, map[string]string{"Mcp-Name": "wirecheck-other-task"}))
	v.seen["MCP-TASKEXT-15"] = true
	if mismatched(res) {
		e.Pass("MCP-TASKEXT-15", seq)
		return
	}
	how := "was not refused with 400 and HeaderMismatch"
	if served(res) {
		how = "was served"
	}
	e.Fail("MCP-TASKEXT-15", seq, what+" "+how+", while the same request with Mcp-Name "+show(id)+" was served (line "+fmt.Sprint(first.Seq)+")", wantMismatch, answered(res))
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// findTaskTool calls the listed tools declaring the extension until one
// is answered with a task; it returns the tool, its arguments and the
// answer (nil when none was).
func findTaskTool(e *scenario.Env, s *session) (string, map[string]any, *peer.Inbound, error) {
	items, _, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return "", nil, nil, err
	}
	tried := 0
	for i, t := range items {
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		if name == "" || skipTool(e, name) {
			continue
		}
		if tried++; tried > taskProbes {
			break
		}
		args := toolArgs(e, tm, i)
		in, err := s.callWith(e, "tools/call", map[string]any{"name": name, "arguments": args}, declaring)
		if err != nil {
			if unjudged(err) {
				continue
			}
			return "", nil, nil, err
		}
		if isTaskAnswer(in) {
			return name, args, in, nil
		}
	}
	return "", nil, nil, nil
}

// judgeGot judges a tasks/get answer of the task id: resultType complete
// (MCP-TASKEXT-4), the task named, and the field its status owes
// (MCP-TASKEXT-6). It returns the status ("" when refused).
func judgeGot(v *extVerdicts, in *peer.Inbound, id string) string {
	if !isResult(in) {
		v.fail("MCP-TASKEXT-6", in, "tasks/get of the task "+show(id)+", which the server created, was refused", "the task")
		return ""
	}
	if rt := field(in, "/result/resultType"); rt == "complete" {
		v.pass("MCP-TASKEXT-4", in.Seq)
	} else {
		v.fail("MCP-TASKEXT-4", in, "the tasks/get result has resultType "+show(rt), "resultType \"complete\"")
	}
	st := str(field(in, "/result/status"))
	owed := map[string]string{"completed": "result", "failed": "error", "input_required": "inputRequests"}[st]
	_, has := in.Field("/result/" + owed)
	switch got := field(in, "/result/taskId"); {
	case got != id:
		v.fail("MCP-TASKEXT-6", in, "tasks/get of the task "+show(id)+" answered the task "+show(got), "taskId "+show(id))
	case st == "":
		v.fail("MCP-TASKEXT-6", in, "tasks/get of the task "+show(id)+" answered no status", "a status")
	case owed != "" && !has:
		v.fail("MCP-TASKEXT-6", in, "tasks/get of the task "+show(id)+", now "+show(st)+", lacks its "+owed, "status "+st+" with "+owed)
	default:
		v.pass("MCP-TASKEXT-6", in.Seq)
	}
	return st
}

// pollTask polls a task with tasks/get every pollIntervalMs ("Clients
// SHOULD respect the pollIntervalMs") until its status is terminal or
// clock runs out (its ttlMs, capped), and returns the last answer.
func pollTask(e *scenario.Env, s *session, v *extVerdicts, id string, clock taskClock) (*peer.Inbound, error) {
	for {
		in, err := s.callWith(e, "tasks/get", map[string]any{"taskId": id}, declaring)
		if err != nil {
			return nil, err
		}
		st := judgeGot(v, in, id)
		if st == "" || terminal(st) || clock.over() {
			return in, nil
		}
		s.settle(e, clock.next(time.Now()))
	}
}

// compareSync calls the task's tool again without the extension: the
// answer is no task (MCP-TASKEXT-1); refused, it is -32021 naming the
// extension (MCP-TASKEXT-2); a result or error is what the finished task
// holds (MCP-TASKEXT-7).
func compareSync(e *scenario.Env, s *session, v *extVerdicts, name string, args map[string]any, final *peer.Inbound, clock taskClock) error {
	in, err := s.callWith(e, "tools/call", map[string]any{"name": name, "arguments": args}, plain)
	if err != nil {
		if unjudged(err) {
			return nil
		}
		return err
	}
	if isTaskAnswer(in) {
		v.fail("MCP-TASKEXT-1", in, "the call of "+show(name)+", whose _meta does not declare "+tasksExt+", was answered with a task", "the tool's result, or an error")
		return nil
	}
	v.pass("MCP-TASKEXT-1", in.Seq)
	if c, ok := errorCode(in); ok {
		ext, _ := field(in, "/error/data/requiredCapabilities/extensions").(map[string]any)
		if _, named := ext[tasksExt]; c == -32021 && named {
			v.pass("MCP-TASKEXT-2", in.Seq)
			v.skip("MCP-TASKEXT-7", "the call without the extension was refused for want of it: nothing to compare the task with")
			return nil
		}
		v.fail("MCP-TASKEXT-2", in, "the call of "+show(name)+" without the extension was refused, though declaring it made a task", "error -32021 with data.requiredCapabilities.extensions naming "+tasksExt)
	} else {
		// Served without a task: the server is able to, and owes no -32021.
		v.pass("MCP-TASKEXT-2", in.Seq)
	}
	st := str(field(final, "/result/status"))
	if !terminal(st) {
		v.skip("MCP-TASKEXT-7", "the task had not ended within "+clock.waited()+", polled "+clock.pollWhy)
		return nil
	}
	if _, refused := errorCode(in); refused {
		// Whether the refusal is the request's own error or the want of
		// the extension cannot be told: nothing to compare.
		v.skip("MCP-TASKEXT-7", "the call without the extension was refused")
		return nil
	}
	if _, has := final.Field("/result/result"); st == "completed" && !has {
		v.skip("MCP-TASKEXT-7", "tasks/get of the completed task carried no result (MCP-TASKEXT-6)")
		return nil
	}
	if st != "completed" {
		v.fail("MCP-TASKEXT-7", final, "the call of "+show(name)+" without a task answers a result, yet its task ended "+show(st), "status completed with that result")
		return nil
	}
	k := differs(field(final, "/result/result"), field(in, "/result"))
	if k == "" {
		v.pass("MCP-TASKEXT-7", final.Seq)
		return nil
	}
	// A tool may answer differently call to call (a time, a random
	// value): a second call without a task that differs from the first
	// in the same field says so, and the comparison proves nothing.
	again, err := s.callWith(e, "tools/call", map[string]any{"name": name, "arguments": args}, plain)
	if err != nil {
		if unjudged(err) {
			return nil
		}
		return err
	}
	if !isResult(again) || differs(field(again, "/result"), field(in, "/result")) == k {
		v.skip("MCP-TASKEXT-7", "two calls of "+show(name)+" with the same arguments without a task answer different "+k+": nothing stable to compare the task's result with")
		return nil
	}
	w := field(in, "/result/"+k)
	v.fail("MCP-TASKEXT-7", final, "the completed task's result differs in "+k+" from the call of "+show(name)+" with the same arguments without a task ("+show(w)+"), which answers it twice alike",
		"result."+k+" "+show(w))
	return nil
}

// differs names the first of a tool result's content, structuredContent
// and isError (absent and false alike) in which two results differ, or "".
func differs(a, b any) string {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	for _, k := range []string{"content", "structuredContent", "isError"} {
		g, w := am[k], bm[k]
		if k == "isError" && ((g == nil && w == false) || (g == false && w == nil)) {
			continue
		}
		if !reflect.DeepEqual(g, w) {
			return k
		}
	}
	return ""
}

// emptyAck judges a tasks/update or tasks/cancel result: resultType
// complete and none of a task's fields.
func emptyAck(v *extVerdicts, rule, method string, in *peer.Inbound) {
	res, _ := field(in, "/result").(map[string]any)
	var extra []string
	for _, k := range []string{"taskId", "status", "result", "error", "inputRequests"} {
		if _, has := res[k]; has {
			extra = append(extra, k)
		}
	}
	switch {
	case res["resultType"] != "complete":
		v.fail(rule, in, "the "+method+" result has resultType "+show(res["resultType"]), "an empty result, resultType \"complete\"")
	case len(extra) > 0:
		v.fail(rule, in, fmt.Sprintf("the %s result carries the task's fields %v", method, extra), "an empty result, resultType \"complete\"")
	default:
		v.pass(rule, in.Seq)
	}
}

// updateTask sends tasks/update with a key the task never asked for.
func updateTask(e *scenario.Env, s *session, v *extVerdicts, id string) error {
	in, err := s.callWith(e, "tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{unaskedInput: map[string]any{"action": "decline"}}}, declaring)
	if err != nil {
		return err
	}
	if isResult(in) {
		emptyAck(v, "MCP-TASKEXT-8", "tasks/update", in)
	} else {
		v.skip("MCP-TASKEXT-8", "tasks/update with an inputResponses key the task never asked for was refused (a server SHOULD ignore it)")
	}
	return nil
}

// cancelTask cancels a task the server issued (kind: "new" or
// "finished"): acknowledged (MCP-TASKEXT-10) with an empty result
// (MCP-TASKEXT-9).
func cancelTask(e *scenario.Env, s *session, v *extVerdicts, id, kind string) error {
	in, err := s.callWith(e, "tasks/cancel", map[string]any{"taskId": id}, declaring)
	if err != nil {
		return err
	}
	if !isResult(in) {
		v.fail("MCP-TASKEXT-10", in, "tasks/cancel of the "+kind+" task "+show(id)+", which the server issued, was refused", "an acknowledgement (an empty result)")
		return nil
	}
	v.pass("MCP-TASKEXT-10", in.Seq)
	emptyAck(v, "MCP-TASKEXT-9", "tasks/cancel", in)
	return nil
}

// ungated sends the task methods for a task the server issued, without
// the extension in _meta: each is refused -32021.
func ungated(e *scenario.Env, s *session, v *extVerdicts, id string) error {
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/get", map[string]any{"taskId": id}},
		{"tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{unaskedInput: map[string]any{"action": "decline"}}}},
		{"tasks/cancel", map[string]any{"taskId": id}},
	} {
		in, err := s.callWith(e, m.method, m.params, plain)
		if err != nil {
			return err
		}
		if c, ok := errorCode(in); ok && c == -32021 {
			v.pass("MCP-TASKEXT-13", in.Seq)
		} else {
			v.fail("MCP-TASKEXT-13", in, m.method+" of the task "+show(id)+", whose _meta does not declare "+tasksExt+", was not refused -32021",
				"error -32021 (Missing Required Client Capability)")
		}
	}
	return nil
}

// unknownTaskExt asks for a task the server never issued.
func unknownTaskExt(e *scenario.Env, s *session, v *extVerdicts) error {
	for _, m := range []struct {
		method, rule string
		params       map[string]any
	}{
		{"tasks/get", "MCP-TASKEXT-11", map[string]any{"taskId": noSuchTask}},
		{"tasks/update", "MCP-TASKEXT-12", map[string]any{"taskId": noSuchTask, "inputResponses": map[string]any{}}},
		{"tasks/cancel", "MCP-TASKEXT-12", map[string]any{"taskId": noSuchTask}},
	} {
		in, err := s.callWith(e, m.method, m.params, declaring)
		if err != nil {
			return err
		}
		if c, ok := errorCode(in); ok && c == -32602 {
			v.pass(m.rule, in.Seq)
		} else {
			v.fail(m.rule, in, m.method+" of the taskId "+show(noSuchTask)+", which the server never issued, was not refused -32602", "error -32602 (Invalid params)")
		}
	}
	return nil
}

// listenUndeclared asks subscriptions/listen for a task's notifications
// without declaring the extension: refused -32021. A subscription the
// server opens instead is closed.
func listenUndeclared(e *scenario.Env, s *session, v *extVerdicts, id string) error {
	req, c, err := s.listen(e, map[string]any{"taskIds": []any{id}})
	if err != nil {
		return err
	}
	j := judgeOf(e)
	acked := func() bool { return j.subscription(c.Key).acked }
	// The refusal is the call's answer, which no frame of the inbox
	// announces: the wait looks in short steps.
	for deadline := time.Now().Add(e.Timeout); !isDone(c) && !acked() && time.Now().Before(deadline); {
		s.watch(e, 20*time.Millisecond, func() bool { return isDone(c) || acked() })
	}
	if isDone(c) && c.Response != nil {
		if code, ok := errorCode(c.Response); ok && code == -32021 {
			v.pass("MCP-TASKEXT-14", c.Response.Seq)
			return nil
		}
		v.fail("MCP-TASKEXT-14", c.Response, "subscriptions/listen for the task "+show(id)+", whose _meta does not declare "+tasksExt+", was not refused -32021",
			"error -32021 (Missing Required Client Capability)")
		return nil
	}
	if acked() {
		v.fail("MCP-TASKEXT-14", nil, "subscriptions/listen for the task "+show(id)+", whose _meta does not declare "+tasksExt+", was acknowledged",
			"error -32021 (Missing Required Client Capability)")
	} else {
		v.skip("MCP-TASKEXT-14", "subscriptions/listen for a task was neither answered nor acknowledged within "+e.Bound(e.Timeout))
	}
	e.Forget(c)
	if closer, ok := e.RequestCloser(); ok && closer.CloseRequest(c.Key) {
		j.closeSub(c.Key)
		return nil
	}
	return notify(e, "notifications/cancelled", map[string]any{"requestId": req["id"], "reason": "wirecheck closes the subscription"})
}
