package mcp

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/mcprevisions"
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// Tasks (basic/utilities/tasks, 2025-11-25): unless the variant no-tasks
// or bare (or the fault task-undeclared) leaves them out, the server
// declares the tasks capability, lists add with execution.taskSupport "optional",
// and runs a task-augmented call of add as a task that completes after
// taskRun. A task-augmented call of another tool is refused -32601 (its
// taskSupport is absent: forbidden).

// taskRun is how long a task works before it completes: long enough for a
// client to see it working and cancel it, short enough for a suite run.
// With the variant task-slow a task works slowTaskRun, longer than the
// --timeout the tests give a response (a task may work as long as its
// server likes; its ttl, 60 s, is how long the server keeps it).
const (
	taskRun     = 300 * time.Millisecond
	slowTaskRun = 2500 * time.Millisecond
)

// resultLag is how long after a task ends the variant task-result-late
// answers a tasks/result that waited for it: a server that looks at its
// tasks on a timer of its own (every pollInterval, as the TypeScript
// SDK's does) answers at its next look, which the text allows ("block
// the response until the task reaches a terminal status" says until
// when, not how soon after).
const resultLag = time.Second

// taskRunFor is how long this server's tasks work.
func (s *server) taskRunFor() time.Duration {
	if s.v("task-slow") {
		return slowTaskRun
	}
	return taskRun
}

// relatedTask is the _meta key tying a message to its task.
const relatedTask = "io.modelcontextprotocol/related-task"

type task struct {
	id, status string
	created    time.Time
	updated    time.Time
	ttl        any
	// result is the tool's result, kept for tasks/result once completed.
	result obj
	// done is closed when the task reaches a terminal status.
	done chan struct{}
	// gets counts tasks/get of the task once terminal (fault
	// task-status-regresses).
	gets int
	// polled: tasks/get has been asked of it (fault task-ext-not-durable).
	polled bool
}

// tasksOn reports whether the server has tasks (and declares them).
func (s *server) tasksOn() bool {
	return s.revHas(revtable.Tasks) && !s.v("no-tasks") && !s.v("bare") && !s.f("task-undeclared")
}

// declareTasks adds the tasks capability to an initialize result's
// capabilities when the server has tasks in revision v.
func (s *server) declareTasks(caps obj, v string) {
	if s.tasksOn() && mcprevisions.Has(v, revtable.Tasks) {
		caps["tasks"] = obj{"list": obj{}, "cancel": obj{}, "requests": obj{"tools": obj{"call": obj{}}}}
	}
}

// taskTool marks a tool definition as one a task may run.
func (s *server) taskTool(def obj) {
	if s.tasksOn() {
		def["execution"] = obj{"taskSupport": "optional"}
	}
}

// taskCall runs a task-augmented tools/call as a task and reports whether
// it did (answered it); a call without task, or to a server without
// tasks, is the caller's to run as usual (the task field ignored).
func (s *server) taskCall(id any, p obj) bool {
	tm, isTask := p["task"].(obj)
	if !isTask || !(s.tasksOn() || (s.f("task-undeclared") && s.revHas(revtable.Tasks))) {
		return false
	}
	name, _ := p["name"].(string)
	var run func(*server, obj) obj
	for _, t := range s.tools() {
		if t.def["name"] != name {
			continue
		}
		if ex, _ := t.def["execution"].(obj); ex["taskSupport"] == nil && !s.f("task-undeclared") {
			s.fail(id, -32601, "Method not found: tool "+name+" does not run as a task")
			return true
		}
		run = t.run
	}
	if run == nil {
		return false // an unknown tool: refused as any call of one
	}
	args, _ := p["arguments"].(obj)
	if args == nil {
		args = obj{}
	}
	now := time.Now().UTC()
	t := &task{status: "working", created: now, updated: now, ttl: 60000, done: make(chan struct{})}
	if n, ok := num(tm["ttl"]); ok && n >= 0 {
		t.ttl = int(n)
	}
	result := run(s, args)
	s.mu.Lock()
	s.addTask(t)
	t.result = result
	view := s.taskView(t)
	s.mu.Unlock()
	if s.f("task-create-bad") {
		delete(view, "ttl")
	}
	if s.f("task-starts-completed") {
		view["status"] = "completed"
	}
	s.result(id, obj{"task": view})
	s.completeLater(t, func() func() {
		view := s.taskView(t)
		if !s.v("task-notifications") {
			return nil
		}
		return func() { s.notify("notifications/tasks/status", view) }
	})
	return true
}

// addTask names t and keeps it, for the 2025-11-25 tasks and the
// extension's alike: task-1, task-2, …, or, with the variant random-ids,
// an id no run makes twice (a fuzz reproducer must refer to the taskId
// a call made, not repeat it). s.mu is held.
func (s *server) addTask(t *task) {
	if s.tasks == nil {
		s.tasks = map[string]*task{}
	}
	s.nextTask++
	t.id = fmt.Sprintf("task-%d", s.nextTask)
	if s.v("random-ids") {
		t.id = "task-" + randomToken()
	}
	s.tasks[t.id] = t
	s.taskOrder = append(s.taskOrder, t.id)
}

// completeLater completes t once its work is done (taskRunFor), unless it is
// no longer working by then (cancelled) or the server stops first.
// completed, if set, runs with s.mu held as t completes, and what it
// returns (if anything) once s.mu is released.
func (s *server) completeLater(t *task, completed func() func()) {
	go func() {
		select {
		case <-time.After(s.taskRunFor()):
		case <-s.stop:
			return
		}
		s.mu.Lock()
		if t.status != "working" {
			s.mu.Unlock()
			return
		}
		t.status, t.updated = "completed", time.Now().UTC()
		close(t.done)
		var after func()
		if completed != nil {
			after = completed()
		}
		s.mu.Unlock()
		if after != nil {
			after()
		}
	}()
}

// taskView is a task as tasks/get and the others answer it. s.mu is held.
func (s *server) taskView(t *task) obj {
	return obj{"taskId": t.id, "status": t.status, "createdAt": t.created.Format(time.RFC3339Nano),
		"lastUpdatedAt": t.updated.Format(time.RFC3339Nano), "ttl": t.ttl, "pollInterval": 100}
}

// unknownTask answers a request for a taskId the server never issued
// (2025-11-25 and the extension alike): -32602, or, for tasks/get with
// the fault named (task-unknown-ok, task-ext-unknown-ok), a working task
// of that id whose ttl is under ttlField (the extension's is ttlMs).
func (s *server) unknownTask(id any, method, key, fault, ttlField string) {
	if method == "tasks/get" && s.f(fault) {
		now := time.Now().UTC().Format(time.RFC3339Nano)
		s.result(id, obj{"taskId": key, "status": "working", "createdAt": now, "lastUpdatedAt": now, ttlField: 60000})
		return
	}
	s.fail(id, -32602, "Invalid params: Failed to retrieve task: Task not found")
}

// terminal reports whether a status is one a task keeps for good.
func terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// taskMethod answers tasks/get, tasks/result, tasks/list and tasks/cancel
// of a server with tasks, and reports whether it did.
func (s *server) taskMethod(id any, method string, p obj) bool {
	if !s.tasksOn() || !strings.HasPrefix(method, "tasks/") {
		return false
	}
	if method == "tasks/list" {
		s.mu.Lock()
		var items []any
		for _, key := range s.taskOrder {
			if t := s.tasks[key]; t != nil && !s.f("task-list-empty") {
				items = append(items, s.taskView(t))
			}
		}
		s.mu.Unlock()
		s.page(id, p, "tasks", items, s.pageSize(10))
		return true
	}
	key, _ := p["taskId"].(string)
	s.mu.Lock()
	t := s.tasks[key]
	if t == nil {
		s.mu.Unlock()
		s.unknownTask(id, method, key, "task-unknown-ok", "ttl")
		return true
	}
	switch method {
	case "tasks/get":
		view := s.taskView(t)
		if terminal(t.status) {
			t.gets++
			if s.f("task-status-regresses") && t.gets%2 == 0 {
				view["status"] = "working"
			}
		}
		s.mu.Unlock()
		if s.f("task-get-wrong") {
			delete(view, "ttl")
		}
		s.result(id, view)
	case "tasks/cancel":
		if terminal(t.status) && !s.f("task-cancel-terminal-ok") {
			status := t.status
			s.mu.Unlock()
			s.fail(id, -32602, "Invalid params: Cannot cancel task: already in terminal status '"+status+"'")
			return true
		}
		if !terminal(t.status) && !s.f("task-cancel-ignored") {
			t.status, t.updated = "cancelled", time.Now().UTC()
			close(t.done)
		}
		view := s.taskView(t)
		if s.f("task-cancel-terminal-ok") {
			view["status"] = "cancelled"
		}
		s.mu.Unlock()
		s.result(id, view)
	case "tasks/result":
		done, early, ended := t.done, s.f("task-result-early"), terminal(t.status)
		s.mu.Unlock()
		if !early {
			select {
			case <-done:
			case <-s.stop:
				return true
			}
		}
		if !ended && s.v("task-result-late") {
			select {
			case <-time.After(resultLag):
			case <-s.stop:
				return true
			}
		}
		s.mu.Lock()
		status, res := t.status, maps.Clone(t.result)
		s.mu.Unlock()
		if status == "cancelled" {
			s.fail(id, -32603, "Internal error: the task was cancelled before it completed")
			return true
		}
		if s.f("task-result-differs") {
			res = obj{"content": []any{text("done")}}
		}
		res["_meta"] = obj{relatedTask: obj{"taskId": t.id}}
		s.result(id, res)
	default:
		s.mu.Unlock()
		return false
	}
	return true
}
