package mcp

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// taskRules are the rules of the tasks utility (2025-11-25,
// basic/utilities/tasks), judged by taskLifecycle.
var taskRules = []string{"MCP-TASKS-1", "MCP-TASKS-2", "MCP-TASKS-3", "MCP-TASKS-4", "MCP-TASKS-5", "MCP-TASKS-6",
	"MCP-TASKS-7", "MCP-TASKS-8", "MCP-TASKS-9", "MCP-TASKS-10", "MCP-TASKS-11", "MCP-TASKS-12"}

// cancelSettle is how long a cancelled task is given before it is polled
// again.
const cancelSettle = 500 * time.Millisecond

// taskIdle is the wait the tasks scenario declares (scenario.Idle, by
// which the runner starts the lanes that wait most first): a task's own
// run, which the scenario waits out, and cancelSettle beside it. How long
// a task runs is the server's to say (tasks are for work that outlasts a
// request) and unknown beforehand; seconds rank its lane among the first
// to start, so that wait overlaps the rest of the run instead of
// following it (docs/official-suite.md: server-everything's one task
// tool runs some 4 s, and its SDK answers tasks/result at its next 1 s
// look after that).
const taskIdle = 5 * time.Second

// noSuchTask is a taskId no server issued.
const noSuchTask = "wirecheck-no-such-task-0"

// taskLifecycle drives the tasks of a tools/call: against a server not
// declaring tasks.requests.tools.call, a task-augmented call must be
// answered as a plain one (MCP-TASKS-1: a task only with the capability);
// against one declaring it, a tool whose
// execution.taskSupport allows a task is called as one, polled, its
// result fetched (while working, then once completed), listed, and a
// second task cancelled; unknown taskIds are refused.
func taskLifecycle(e *scenario.Env) error {
	s, err := ensure(e)
	if err != nil {
		return err
	}
	if s.modern || !e.Protocol.Has(s.version, revtable.Tasks) {
		skipAll(e, "revision "+s.version+" has no tasks in its core (from 2026-07-28 tasks are an extension: scenario tasks-extension, MCP-TASKEXT-*)", taskRules...)
		return nil
	}
	items, _, err := listAll(e, s, "tools/list", "tools", "MCP-TOOLS-2")
	if err != nil {
		return err
	}
	var taskTool, plainTool, firstTool map[string]any
	var taskIdx, plainIdx, firstIdx int
	for i, t := range items {
		tm, _ := t.(map[string]any)
		name, _ := tm["name"].(string)
		if i >= maxItems || name == "" || skipTool(e, name) {
			continue
		}
		if firstTool == nil {
			firstTool, firstIdx = tm, i
		}
		ex, _ := tm["execution"].(map[string]any)
		switch ex["taskSupport"] {
		case "optional", "required":
			if taskTool == nil {
				taskTool, taskIdx = tm, i
			}
		case nil, "forbidden":
			if plainTool == nil {
				plainTool, plainIdx = tm, i
			}
		}
	}
	tc, _ := s.caps["tasks"].(map[string]any)
	reqs, _ := tc["requests"].(map[string]any)
	toolsReq, _ := reqs["tools"].(map[string]any)
	if _, declared := toolsReq["call"]; !declared {
		skipAll(e, "the server does not declare tasks.requests.tools.call", taskRules[1:]...)
		return undeclaredTask(e, s, firstTool, firstIdx)
	}
	if plainTool != nil {
		if err := forbiddenTask(e, s, plainTool, plainIdx); err != nil {
			return err
		}
	} else {
		e.Skip("MCP-TASKS-12", "every listed tool allows a task (execution.taskSupport optional or required)")
	}
	_, canCancel := tc["cancel"]
	if err := unknownTask(e, s, canCancel); err != nil {
		return err
	}
	if taskTool == nil {
		skipAll(e, "no listed tool's execution.taskSupport is optional or required", "MCP-TASKS-1", "MCP-TASKS-2", "MCP-TASKS-3", "MCP-TASKS-4",
			"MCP-TASKS-5", "MCP-TASKS-6", "MCP-TASKS-7", "MCP-TASKS-8", "MCP-TASKS-9", "MCP-TASKS-11")
		return nil
	}
	name, _ := taskTool["name"].(string)
	args := toolArgs(e, taskTool, taskIdx)
	// The task cancelled while working is made and cancelled first, and
	// polled again last: the settling it is given then passes while the
	// other task runs its course, rather than after it.
	var cancelled *cancelledTask
	if canCancel {
		if cancelled, err = cancelWorking(e, s, name, args); err != nil {
			return err
		}
	}
	id, created, err := createTask(e, s, name, args)
	if err != nil || id == "" {
		if err == nil {
			skipAll(e, "the task-augmented call of "+show(name)+" made no task", "MCP-TASKS-4", "MCP-TASKS-5", "MCP-TASKS-6",
				"MCP-TASKS-7", "MCP-TASKS-8", "MCP-TASKS-9", "MCP-TASKS-11")
		}
		return err
	}
	clock, err := newTaskClock(e, created, time.Now(), "/result/task/ttl", "/result/task/pollInterval")
	if err != nil {
		return err
	}
	status, pending, err := waitResult(e, s, id, clock)
	if pending != nil {
		// tasks/result still unanswered once the task ended: a server
		// may answer it at its next look at the task (on a timer of its
		// own). Nothing more is judged of it, so it is given up rather
		// than waited for, and the lane ends with the checks.
		defer e.Forget(pending)
	}
	if err != nil {
		return err
	}
	if err := terminalKept(e, s, id, status, clock.waited()); err != nil {
		return err
	}
	if status == "completed" {
		ex, _ := taskTool["execution"].(map[string]any)
		if err := sameResult(e, s, id, name, args, ex["taskSupport"] == "required"); err != nil {
			return err
		}
	} else {
		e.Skip("MCP-TASKS-6", "the task ended "+show(status)+", not completed")
	}
	if _, ok := tc["list"]; ok {
		if err := listed(e, s, id); err != nil {
			return err
		}
	} else {
		e.Skip("MCP-TASKS-11", "the server does not declare tasks.list")
	}
	if !canCancel {
		skipAll(e, "the server does not declare tasks.cancel", "MCP-TASKS-8", "MCP-TASKS-9")
		return nil
	}
	if terminal(status) {
		in, err := s.call(e, "tasks/cancel", map[string]any{"taskId": id})
		if err != nil {
			return err
		}
		if c, ok := errorCode(in); ok && c == -32602 {
			e.Pass("MCP-TASKS-8", in.Seq)
		} else {
			e.Fail("MCP-TASKS-8", in.Seq, "tasks/cancel of a task in the terminal status "+show(status)+" was not refused -32602",
				"error -32602 (Invalid params)", string(in.Raw))
		}
	} else {
		e.Skip("MCP-TASKS-8", "the task did not reach a terminal status within "+clock.waited())
	}
	return cancelled.stays(e, s)
}

// terminal reports whether a task status is one a task keeps for good.
func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// taskCall is the params of a task-augmented tools/call.
func taskCall(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": 60000}}
}

// undeclaredTask calls a tool with a task although the server declares
// no task support for tools/call: it must answer as without one.
func undeclaredTask(e *scenario.Env, s *session, tool map[string]any, i int) error {
	if tool == nil {
		e.Skip("MCP-TASKS-1", "the server lists no tool to call")
		return nil
	}
	name, _ := tool["name"].(string)
	in, err := s.call(e, "tools/call", taskCall(name, toolArgs(e, tool, i)))
	if err != nil {
		if unjudged(err) {
			e.Skip("MCP-TASKS-1", err.Error())
			return nil
		}
		return err
	}
	switch _, task := in.Field("/result/task"); {
	case task:
		e.Fail("MCP-TASKS-1", in.Seq, "a task-augmented call of "+show(name)+" was answered with a task, though the server declares no tasks.requests.tools.call",
			"the tool's CallToolResult, the task field ignored", string(in.Raw))
	case isResult(in):
		e.Pass("MCP-TASKS-1", in.Seq)
	default:
		e.Skip("MCP-TASKS-1", "the task-augmented call of "+show(name)+" was refused; whether the call without a task would be is not asked")
	}
	return nil
}

// forbiddenTask calls a tool whose taskSupport is absent or forbidden as
// a task.
func forbiddenTask(e *scenario.Env, s *session, tool map[string]any, i int) error {
	name, _ := tool["name"].(string)
	in, err := s.call(e, "tools/call", taskCall(name, toolArgs(e, tool, i)))
	if err != nil {
		if unjudged(err) {
			e.Skip("MCP-TASKS-12", err.Error())
			return nil
		}
		return err
	}
	if c, ok := errorCode(in); ok && c == -32601 {
		e.Pass("MCP-TASKS-12", in.Seq)
	} else {
		e.Fail("MCP-TASKS-12", in.Seq, "a task-augmented call of "+show(name)+", whose execution.taskSupport allows no task, was not refused -32601",
			"error -32601 (Method not found)", string(in.Raw))
	}
	return nil
}

// unknownTask asks for a task the server never issued.
func unknownTask(e *scenario.Env, s *session, canCancel bool) error {
	methods := []string{"tasks/get", "tasks/result"}
	if canCancel {
		methods = append(methods, "tasks/cancel")
	}
	for _, m := range methods {
		in, err := s.call(e, m, map[string]any{"taskId": noSuchTask})
		if err != nil {
			return err
		}
		if c, ok := errorCode(in); ok && c == -32602 {
			e.Pass("MCP-TASKS-10", in.Seq)
		} else {
			e.Fail("MCP-TASKS-10", in.Seq, m+" of the taskId "+show(noSuchTask)+", which the server never issued, was not refused -32602",
				"error -32602 (Invalid params)", string(in.Raw))
		}
	}
	return nil
}

// createTask calls a tool as a task and returns the task's id ("" when
// no task was made) and the CreateTaskResult.
func createTask(e *scenario.Env, s *session, name string, args map[string]any) (string, *peer.Inbound, error) {
	in, err := s.call(e, "tools/call", taskCall(name, args))
	if err != nil {
		if unjudged(err) {
			skipAll(e, err.Error(), "MCP-TASKS-1", "MCP-TASKS-2", "MCP-TASKS-3")
			return "", nil, nil
		}
		return "", nil, err
	}
	if !isResult(in) {
		skipAll(e, "the task-augmented call of "+show(name)+" was refused", "MCP-TASKS-1", "MCP-TASKS-2", "MCP-TASKS-3")
		return "", nil, nil
	}
	id, ok := field(in, "/result/task/taskId").(string)
	if !ok {
		e.Fail("MCP-TASKS-2", in.Seq, "a task-augmented call of "+show(name)+", which the server accepted, was answered without a task whose taskId is a string",
			"a CreateTaskResult {task: {taskId, status, …}}", string(in.Raw))
		skipAll(e, "the answer carried no task", "MCP-TASKS-1", "MCP-TASKS-3")
		return "", nil, nil
	}
	// A task, from a server declaring tasks.requests.tools.call.
	e.Pass("MCP-TASKS-1", in.Seq)
	e.Pass("MCP-TASKS-2", in.Seq)
	if st := field(in, "/result/task/status"); st == "working" {
		e.Pass("MCP-TASKS-3", in.Seq)
	} else {
		e.Fail("MCP-TASKS-3", in.Seq, "the task just created has the status "+show(st), "status working", string(in.Raw))
	}
	return id, in, nil
}

// getTask asks tasks/get for a task and judges the answer names it with
// the fields every task response carries; it returns the status.
func getTask(e *scenario.Env, s *session, id string) (string, *peer.Inbound, error) {
	in, err := s.call(e, "tasks/get", map[string]any{"taskId": id})
	if err != nil {
		return "", nil, err
	}
	if !isResult(in) {
		e.Fail("MCP-TASKS-4", in.Seq, "tasks/get of the task "+show(id)+" the server created was refused", "a GetTaskResult", string(in.Raw))
		return "", in, nil
	}
	_, hasTTL := in.Field("/result/ttl")
	created, _ := field(in, "/result/createdAt").(string)
	updated, _ := field(in, "/result/lastUpdatedAt").(string)
	switch got := field(in, "/result/taskId"); {
	case got != id:
		e.Fail("MCP-TASKS-4", in.Seq, "tasks/get of the task "+show(id)+" answered the task "+show(got), "taskId "+show(id), string(in.Raw))
	case !hasTTL || created == "" || updated == "":
		e.Fail("MCP-TASKS-4", in.Seq, "tasks/get of the task "+show(id)+" lacks ttl, createdAt or lastUpdatedAt", "ttl (a number or null), createdAt, lastUpdatedAt", string(in.Raw))
	default:
		e.Pass("MCP-TASKS-4", in.Seq)
	}
	st, _ := field(in, "/result/status").(string)
	return st, in, nil
}

// taskStep is how often the wait on a task looks for tasks/result's
// answer and a status notification between two polls: what it looks at
// is already here, so the step costs the server nothing.
const taskStep = 20 * time.Millisecond

// streamHold is how long wirecheck's Streamable HTTP transport keeps a
// request's SSE stream open without its response before closing it, in
// multiples of --timeout; a tasks/result still unanswered a --timeout
// before that is given up (forgotten), so the closing is no finding
// against a server whose task legitimately works longer: an answer that
// comes still ends its wait.
const streamHold = httpmcp.StreamLimit

// waitResult asks tasks/result of a task just created, polls it with
// tasks/get meanwhile (every pollInterval, and at once when a
// notifications/tasks/status says it ended), and judges that the result
// did not come while the task was working: either it came, and tasks/get
// after it says the task ended, or tasks/get said the task ended while it
// was still unanswered, which is all the rule asks (it blocked until
// then). It returns the task's status then, and the tasks/result call
// while unanswered. The wait is the task's: clock (its ttl, capped), not
// --timeout.
func waitResult(e *scenario.Env, s *session, id string, clock taskClock) (string, *peer.Call, error) {
	c, _, _, err := s.dispatch(e, "tasks/result", map[string]any{"taskId": id}, sendOpts{})
	if err != nil {
		return "", nil, err
	}
	sent := time.Now()
	// tasks/result waits for the task: its answer may outlast --timeout.
	e.Patient(c)
	var giveUp, blind time.Time
	if x, ok := exchangerOf(e); ok && x.Kind() == "http" {
		giveUp, blind = sent.Add((streamHold-1)*e.Timeout), sent.Add(streamHold*e.Timeout)
	}
	forgotten := false
	before, _, err := getTask(e, s, id)
	if err != nil {
		return "", c, err
	}
	polled := time.Now()
	for {
		res, err := awaitResult(e, c, forgotten, min(clock.next(polled), taskStep))
		if err == nil {
			st, err := resultCame(e, s, id, clock, before, res, sent)
			return st, nil, err
		}
		if !errors.Is(err, peer.ErrTimeout) {
			if errors.Is(err, peer.ErrRefused) {
				// Its exchange ended without it (over HTTP, a server
				// that sends no headers before its answer meets
				// --timeout): nothing tells whether it would have come
				// early.
				e.Skip("MCP-TASKS-5", fmt.Sprintf("the exchange of tasks/result of the task %s ended without an answer (%v), while the task was to be waited for %s",
					show(id), err, clock.waited()))
				st, err := untilTerminal(e, s, id, clock)
				return st, nil, err
			}
			return "", c, err
		}
		if !forgotten && !giveUp.IsZero() && time.Now().After(giveUp) {
			e.Forget(c)
			forgotten = true
		}
		if !statusEnded(e, id) && clock.next(polled) > 0 {
			continue
		}
		st, in, err := getTask(e, s, id)
		polled = time.Now()
		switch {
		case err != nil:
			return "", c, err
		case st == "":
			e.Skip("MCP-TASKS-5", "tasks/get of the task, polled while tasks/result was unanswered, answered no status")
			return st, c, nil
		case terminal(st) && terminal(before):
			e.Skip("MCP-TASKS-5", "the task was "+show(before)+" already when first polled: no working task to ask the result of")
			return st, c, nil
		case terminal(st) && !blind.IsZero() && polled.After(blind):
			e.Skip("MCP-TASKS-5", fmt.Sprintf("tasks/get said the task %s ended %s after tasks/result was sent, which was unanswered when wirecheck's HTTP transport closed its stream (%d×--timeout, %s): whether its answer would have come before the task ended is not seen (a --timeout over a quarter of the task's run sees it)",
				show(id), time.Since(sent).Round(time.Millisecond), streamHold, streamHold*e.Timeout))
			return st, c, nil
		case terminal(st):
			e.PassNote("MCP-TASKS-5", in.Seq, fmt.Sprintf("tasks/result, sent while the task was %s, was still unanswered when tasks/get said %s, %s later: it blocked until the task ended (its answer, whenever it comes, is not waited for; polled %s; the wait would have lasted %s)",
				show(before), show(st), time.Since(sent).Round(time.Millisecond), clock.pollWhy, clock.waited()))
			return st, c, nil
		case clock.over():
			e.Skip("MCP-TASKS-5", fmt.Sprintf("tasks/result of the task %s was not answered, nor did tasks/get say the task ended (it is %s), within %s",
				show(id), show(st), clock.waited()))
			return st, c, nil
		}
	}
}

// awaitResult waits up to d for tasks/result's answer; once the call is
// forgotten (streamHold), an answer that comes all the same still ends
// the wait.
func awaitResult(e *scenario.Env, c *peer.Call, forgotten bool, d time.Duration) (*peer.Inbound, error) {
	if !forgotten {
		return e.Response(c, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.Done():
		if c.Response == nil {
			<-t.C
			return nil, peer.ErrTimeout
		}
		return c.Response, nil
	case <-t.C:
		return nil, peer.ErrTimeout
	}
}

// resultCame judges tasks/result's answer, res, by tasks/get after it:
// the task must have ended.
func resultCame(e *scenario.Env, s *session, id string, clock taskClock, before string, res *peer.Inbound, sent time.Time) (string, error) {
	took := time.Since(sent).Round(time.Millisecond)
	s.drain(e)
	after, in, err := getTask(e, s, id)
	if err != nil {
		return "", err
	}
	switch {
	case terminal(before):
		e.Skip("MCP-TASKS-5", "the task was "+show(before)+" already when first polled: no working task to ask the result of")
	case in == nil || after == "":
		e.Skip("MCP-TASKS-5", "tasks/get after tasks/result answered no status")
	case terminal(after):
		e.PassNote("MCP-TASKS-5", res.Seq, fmt.Sprintf("tasks/result, sent while the task was %s, was answered %s later, and tasks/get after it said %s (the wait would have lasted %s)",
			show(before), took, show(after), clock.waited()))
	default:
		e.Fail("MCP-TASKS-5", res.Seq, fmt.Sprintf("tasks/result of the working task %s was answered while the task was still %s (tasks/get after it)", show(id), show(after)),
			"tasks/result answered once the task is completed, failed or cancelled", string(res.Raw)+" then "+string(in.Raw))
		// The rules of a finished task are still judged once it ends.
		return untilTerminal(e, s, id, clock)
	}
	return after, nil
}

// statusEnded takes the frames that came and reports whether one is a
// notifications/tasks/status saying the task id ended. Such a
// notification is optional ("Requestors MUST NOT rely on receiving this
// notifications"): it only brings the next poll forward.
func statusEnded(e *scenario.Env, id string) bool {
	ended := false
	for in := range e.Drain(0, nil) {
		if field(in, "/method") == "notifications/tasks/status" && field(in, "/params/taskId") == id && terminal(str(field(in, "/params/status"))) {
			ended = true
		}
	}
	return ended
}

// untilTerminal polls a task every pollInterval until its status is
// terminal or clock runs out, and returns the last status.
func untilTerminal(e *scenario.Env, s *session, id string, clock taskClock) (string, error) {
	for {
		st, in, err := getTask(e, s, id)
		if err != nil || in == nil || st == "" || terminal(st) || clock.over() {
			return st, err
		}
		s.settle(e, clock.next(time.Now()))
	}
}

// terminalKept polls a task twice more once terminal: its status must
// stay.
func terminalKept(e *scenario.Env, s *session, id, status, waited string) error {
	if !terminal(status) {
		e.Skip("MCP-TASKS-7", "the task did not reach a terminal status within "+waited)
		return nil
	}
	for range 2 {
		st, in, err := getTask(e, s, id)
		if err != nil || in == nil {
			return err
		}
		if st != status {
			e.Fail("MCP-TASKS-7", in.Seq, "the task "+show(id)+", "+show(status)+" before, is now "+show(st), "status "+show(status), string(in.Raw))
			return nil
		}
		e.Pass("MCP-TASKS-7", in.Seq)
	}
	return nil
}

// sameResult compares tasks/result of a completed task with the call of
// the same tool and arguments without a task.
func sameResult(e *scenario.Env, s *session, id, name string, args map[string]any, required bool) error {
	if required {
		e.Skip("MCP-TASKS-6", "the tool "+show(name)+" requires a task: no call without one to compare with")
		return nil
	}
	got, err := s.call(e, "tasks/result", map[string]any{"taskId": id})
	if err != nil {
		return err
	}
	want, err := s.call(e, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		if unjudged(err) {
			e.Skip("MCP-TASKS-6", err.Error())
			return nil
		}
		return err
	}
	if !isResult(got) || !isResult(want) {
		if code, ok := errorCode(want); ok {
			if c, ok := errorCode(got); ok && c == code {
				e.Pass("MCP-TASKS-6", got.Seq)
				return nil
			}
		}
		e.Fail("MCP-TASKS-6", got.Seq, "tasks/result of the completed task "+show(id)+" and the call of "+show(name)+" without a task differ in kind (result or error)",
			string(want.Raw), string(got.Raw))
		return nil
	}
	for _, k := range []string{"content", "structuredContent", "isError"} {
		g, w := field(got, "/result/"+k), field(want, "/result/"+k)
		if k == "isError" && ((g == nil && w == false) || (g == false && w == nil)) {
			continue
		}
		if !reflect.DeepEqual(g, w) {
			e.Fail("MCP-TASKS-6", got.Seq, "tasks/result of the completed task "+show(id)+" differs in "+k+" from the call of "+show(name)+" with the same arguments without a task",
				k+" "+show(w), k+" "+show(g))
			return nil
		}
	}
	e.Pass("MCP-TASKS-6", got.Seq)
	return nil
}

// listed looks for a task on every page of tasks/list.
func listed(e *scenario.Env, s *session, id string) error {
	items, in, err := listAll(e, s, "tasks/list", "tasks", "MCP-TASKS-11")
	if err != nil || in == nil {
		return err
	}
	if !isResult(in) {
		e.Fail("MCP-TASKS-11", in.Seq, "tasks/list was refused by a server declaring tasks.list", "a ListTasksResult", string(in.Raw))
		return nil
	}
	for _, t := range items {
		if tm, _ := t.(map[string]any); tm["taskId"] == id {
			e.Pass("MCP-TASKS-11", in.Seq)
			return nil
		}
	}
	e.Fail("MCP-TASKS-11", in.Seq, fmt.Sprintf("tasks/list (%d tasks over every page) lacks the task %s, which tasks/get retrieves", len(items), show(id)),
		"the task "+show(id)+" listed", string(in.Raw))
	return nil
}

// cancelledTask is a task cancelled while working, to be polled again
// once cancelSettle has passed since.
type cancelledTask struct {
	id string
	at time.Time
}

// cancelWorking creates a task and cancels it at once: the answer says
// cancelled (MCP-TASKS-9). Nil when there is nothing to poll again.
func cancelWorking(e *scenario.Env, s *session, name string, args map[string]any) (*cancelledTask, error) {
	in, err := s.call(e, "tools/call", taskCall(name, args))
	if err != nil {
		if unjudged(err) {
			e.Skip("MCP-TASKS-9", err.Error())
			return nil, nil
		}
		return nil, err
	}
	id, ok := field(in, "/result/task/taskId").(string)
	if !ok {
		e.Skip("MCP-TASKS-9", "the task-augmented call of "+show(name)+" to cancel made no task")
		return nil, nil
	}
	in, err = s.call(e, "tasks/cancel", map[string]any{"taskId": id})
	if err != nil {
		return nil, err
	}
	if !isResult(in) {
		st, got, err := getTask(e, s, id)
		if err != nil || got == nil {
			return nil, err
		}
		if terminal(st) && st != "cancelled" {
			e.Skip("MCP-TASKS-9", "the task was "+show(st)+" before wirecheck's tasks/cancel reached it")
			return nil, nil
		}
		e.Fail("MCP-TASKS-9", in.Seq, "tasks/cancel of the working task "+show(id)+" was refused", "the task, status cancelled", string(in.Raw))
		return nil, nil
	}
	if st := field(in, "/result/status"); st != "cancelled" {
		e.Fail("MCP-TASKS-9", in.Seq, "tasks/cancel of the working task "+show(id)+" answered the status "+show(st), "status cancelled", string(in.Raw))
		return nil, nil
	}
	e.Pass("MCP-TASKS-9", in.Seq)
	return &cancelledTask{id: id, at: time.Now()}, nil
}

// stays polls the cancelled task once cancelSettle has passed since its
// cancellation (long enough for a task the server kept running to have
// ended): tasks/get must still say cancelled.
func (c *cancelledTask) stays(e *scenario.Env, s *session) error {
	if c == nil {
		return nil
	}
	s.settle(e, time.Until(c.at.Add(cancelSettle)))
	st, got, err := getTask(e, s, c.id)
	if err != nil || got == nil {
		return err
	}
	if st != "cancelled" {
		e.Fail("MCP-TASKS-9", got.Seq, "the task "+show(c.id)+", cancelled, is now "+show(st), "status cancelled", string(got.Raw))
	} else {
		e.Pass("MCP-TASKS-9", got.Seq)
	}
	return nil
}
