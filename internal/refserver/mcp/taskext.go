package mcp

import (
	"maps"
	"time"
)

// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) of
// 2026-07-28: the server declares it in server/discover and, when a call
// of add declares it in its _meta, answers with a task (resultType
// "task") that works for taskRunFor and then completes with add's result,
// inlined in tasks/get. tasks/update is acknowledged (the server never
// asks for input, so every key is one it ignores); tasks/cancel is
// acknowledged and cancels a working task. Without the extension on the
// request, add is a plain call and tasks/* are refused -32021.

const tasksExt = "io.modelcontextprotocol/tasks"

// tasksExtOn reports whether this session serves the extension: the
// plain reference server does in 2026-07-28, unless the variant
// tasks-ext-undeclared or bare leaves it out; a profile's server (an
// Extension) never does.
func (s *server) tasksExtOn() bool {
	return s.modern() && s.ext == nil && !s.v("bare") && !s.v("tasks-ext-undeclared")
}

func (s *server) tasksExtCaps(caps obj) {
	if !s.tasksExtOn() {
		return
	}
	declareExtension(caps, tasksExt, obj{})
}

// declareExtension adds an extension, with its settings, to the
// capabilities' extensions object (made if absent: the skills and the
// tasks extensions share it).
func declareExtension(caps obj, name string, settings obj) {
	ext, _ := caps["extensions"].(obj)
	if ext == nil {
		ext = obj{}
		caps["extensions"] = ext
	}
	ext[name] = settings
}

// asksTasks reports whether a request's _meta declares the extension.
func asksTasks(p obj) bool {
	ext, _ := clientCaps(p)["extensions"].(obj)
	_, ok := ext[tasksExt]
	return ok
}

// missingTasks is the -32021 error naming the extension.
func missingTasks() *rpcError {
	return &rpcError{code: -32021, msg: "Missing required client capability",
		data: obj{"requiredCapabilities": obj{"extensions": obj{tasksExt: obj{}}}}}
}

// taskExtCall answers a call of add as the extension has it and reports
// whether it did; other calls are the caller's.
func (s *server) taskExtCall(id any, p obj) bool {
	if !s.tasksExtOn() || p["name"] != "add" || s.v("task-ext-sync") {
		return false
	}
	if !asksTasks(p) {
		switch {
		case s.f("task-ext-unasked"):
		case s.v("task-ext-required"):
			s.failWith(id, missingTasks())
			return true
		case s.f("task-ext-required-bad-code"):
			s.fail(id, -32603, "Internal error: add runs as a task only")
			return true
		default:
			return false
		}
	}
	var run func(*server, obj) obj
	for _, t := range s.tools() {
		if t.def["name"] == "add" {
			run = t.run
		}
	}
	args, _ := p["arguments"].(obj)
	if args == nil {
		args = obj{}
	}
	result := run(s, args)
	if s.f("task-ext-result-differs") {
		result = obj{"content": []any{text("done")}}
	}
	now := time.Now().UTC()
	t := &task{status: "working", created: now, updated: now, ttl: 60000, result: result, done: make(chan struct{})}
	if s.v("task-ext-no-ttl") {
		t.ttl = nil
	}
	if s.v("task-ext-immediate") {
		t.status = "completed"
		close(t.done)
	}
	s.mu.Lock()
	s.addTask(t)
	view := s.taskExtView(t)
	// Read under the lock: a tasks/cancel may change it once answered.
	working := t.status == "working"
	s.mu.Unlock()
	view["resultType"] = "task"
	if s.f("task-ext-result-type") {
		view["resultType"] = "complete"
	}
	s.result(id, view)
	if working {
		s.completeLater(t, nil)
	}
	return true
}

// taskExtView is a task as the extension's Task; s.mu is held.
func (s *server) taskExtView(t *task) obj {
	return obj{"taskId": t.id, "status": t.status, "createdAt": t.created.Format(time.RFC3339Nano),
		"lastUpdatedAt": t.updated.Format(time.RFC3339Nano), "ttlMs": t.ttl, "pollIntervalMs": 100}
}

// taskExtMethod answers tasks/get, tasks/update and tasks/cancel of a
// server with the extension, and reports whether it did; tasks/result and
// tasks/list (2025-11-25 only) are left to the unknown-method answer.
func (s *server) taskExtMethod(id any, method string, p obj) bool {
	if !s.tasksExtOn() || (method != "tasks/get" && method != "tasks/update" && method != "tasks/cancel") {
		return false
	}
	if !asksTasks(p) && !s.f("task-ext-ungated") {
		s.failWith(id, missingTasks())
		return true
	}
	key, _ := p["taskId"].(string)
	s.mu.Lock()
	t := s.tasks[key]
	if t == nil || (s.f("task-ext-not-durable") && method == "tasks/get" && !t.polled) {
		if t != nil {
			t.polled = true
		}
		s.mu.Unlock()
		s.unknownTask(id, method, key, "task-ext-unknown-ok", "ttlMs")
		return true
	}
	t.polled = true
	switch method {
	case "tasks/get":
		view := s.taskExtView(t)
		if t.status == "completed" && !s.f("task-ext-get-no-result") {
			view["result"] = maps.Clone(t.result)
		}
		s.mu.Unlock()
		if s.f("task-ext-get-type") {
			view["resultType"] = "task"
		}
		s.result(id, view)
		return true
	case "tasks/cancel":
		if terminal(t.status) && s.f("task-ext-cancel-terminal-refused") {
			status := t.status
			s.mu.Unlock()
			s.fail(id, -32602, "Invalid params: Cannot cancel task: already "+status)
			return true
		}
		if t.status == "working" {
			t.status, t.updated = "cancelled", time.Now().UTC()
			close(t.done)
		}
	}
	view := s.taskExtView(t)
	s.mu.Unlock()
	if (method == "tasks/cancel" && s.f("task-ext-cancel-envelope")) || (method == "tasks/update" && s.f("task-ext-update-envelope")) {
		s.result(id, view)
		return true
	}
	s.result(id, obj{})
	return true
}

// listenTasksRefused answers a subscriptions/listen asking for taskIds
// without declaring the extension -32021 and reports whether it did.
func (s *server) listenTasksRefused(id any, p obj) bool {
	filter, _ := p["notifications"].(obj)
	if _, asks := filter["taskIds"]; !asks || !s.tasksExtOn() || asksTasks(p) || s.f("task-ext-listen-ungated") {
		return false
	}
	s.failWith(id, missingTasks())
	return true
}
