package mcp

import (
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// TaskWaitParam names the --param that sets the longest wirecheck waits
// for a task to end (a duration; default taskWaitCap).
const TaskWaitParam = "mcp-task-wait"

// taskWaitCap is the longest wirecheck waits for a task to end unless
// --param mcp-task-wait says otherwise. A task may work as long as its
// server likes, and its ttl is how long the server keeps it, not how long
// it works: a ttl of minutes (server-everything gives 5) or none
// (unlimited) would let a server that never ends its task hold the lane
// that long. 30 s outlasts every task a test server runs for show.
const taskWaitCap = 30 * time.Second

// defaultPoll is how often a task that declares no poll interval is
// polled; minPoll the shortest step whatever it declares (a server
// saying 0 is not polled in a busy loop).
const (
	defaultPoll = 100 * time.Millisecond
	minPoll     = 10 * time.Millisecond
)

// taskClock is how long wirecheck waits on a task and how often it polls
// it, by what the server declared of the task: the wait ends once the
// task's ttl has passed since it was created (the spec lets the server
// drop it then: basic/utilities/tasks#ttl-and-resource-management "After
// a task's ttl lifetime has elapsed, receivers MAY delete the task"; the
// extension: "clients MAY treat the TTL as a backstop"), no sooner than
// --timeout and no later than the cap; tasks/get is sent every
// pollInterval ("Requestors SHOULD respect this value when provided").
type taskClock struct {
	deadline time.Time
	bound    time.Duration
	// why says where bound came from, for the verdicts that name it.
	why  string
	poll time.Duration
	// pollWhy says where poll came from.
	pollWhy string
}

// newTaskClock reads the task a CreateTaskResult (or tasks/get) carries
// under ttlPtr and pollPtr (JSON pointers: the 2025-11-25 task's ttl and
// pollInterval, the extension's ttlMs and pollIntervalMs), the task made
// at start.
func newTaskClock(e *scenario.Env, in *peer.Inbound, start time.Time, ttlPtr, pollPtr string) (taskClock, error) {
	capD, capWhy := taskWaitCap, "wirecheck's maximum wait for a task; --param "+TaskWaitParam+"=DURATION sets it"
	if v := e.Params[TaskWaitParam]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return taskClock{}, fmt.Errorf("--param %s=%s: not a positive duration (e.g. 2m)", TaskWaitParam, v)
		}
		capD, capWhy = d, "--param "+TaskWaitParam
	}
	name := ttlPtr[strings.LastIndex(ttlPtr, "/")+1:]
	var c taskClock
	ttl, hasTTL := in.Field(ttlPtr)
	n, isNum := number(ttl)
	switch {
	case hasTTL && ttl == nil:
		c.bound, c.why = capD, fmt.Sprintf("the task's %s is null (unlimited): %s, %s", name, capD, capWhy)
	case !isNum || n < 0:
		c.bound, c.why = e.Timeout, "the task declares no "+name+": "+e.Bound(e.Timeout)
	default:
		d := time.Duration(n * float64(time.Millisecond))
		switch {
		case d > capD:
			c.bound, c.why = capD, fmt.Sprintf("the task's %s %s, capped at %s (%s)", name, d, capD, capWhy)
		case d < e.Timeout:
			c.bound, c.why = e.Timeout, fmt.Sprintf("%s, longer than the task's %s %s", e.Bound(e.Timeout), name, d)
		default:
			c.bound, c.why = d, fmt.Sprintf("the task's %s %s", name, d)
		}
	}
	c.deadline = start.Add(c.bound)
	pollName := pollPtr[strings.LastIndex(pollPtr, "/")+1:]
	c.poll, c.pollWhy = defaultPoll, fmt.Sprintf("every %s: the task declares no %s", defaultPoll, pollName)
	if p, ok := number(field(in, pollPtr)); ok && p >= 0 {
		c.poll = max(time.Duration(p*float64(time.Millisecond)), minPoll)
		c.pollWhy = fmt.Sprintf("every %s, the task's %s", c.poll, pollName)
	}
	return c, nil
}

// waited names the wait for the verdicts: "30s (the task's ttl 5m0s,
// capped …)".
func (c taskClock) waited() string {
	return c.bound.String() + " (" + c.why + ")"
}

// next is how long to wait before the next poll, last polled at last:
// the poll interval, no later than the deadline.
func (c taskClock) next(last time.Time) time.Duration {
	return max(min(time.Until(last.Add(c.poll)), time.Until(c.deadline)), 0)
}

// over reports whether the wait has run out.
func (c taskClock) over() bool { return !time.Now().Before(c.deadline) }
