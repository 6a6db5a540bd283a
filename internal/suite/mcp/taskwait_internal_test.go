package mcp

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/scenario"
)

// How long wirecheck waits on a task and how often it polls it: by what
// the server declares of the task (its ttl and pollInterval), not by
// --timeout, and never past a cap a hostile server cannot lift.
var _ = Describe("the wait on a task", func() {
	env := func(params map[string]string) *scenario.Env {
		return &scenario.Env{Timeout: 5 * time.Second, Params: params}
	}
	clock := func(task string, params map[string]string) taskClock {
		c, err := newTaskClock(env(params), frame(`{"jsonrpc":"2.0","id":1,"result":{"task":`+task+`}}`), time.Now(),
			"/result/task/ttl", "/result/task/pollInterval")
		Expect(err).NotTo(HaveOccurred())
		return c
	}

	It("lasts the task's ttl, polled every pollInterval", func() {
		c := clock(`{"ttl":12000,"pollInterval":1000}`, nil)
		Expect(c.bound).To(Equal(12 * time.Second))
		Expect(c.waited()).To(Equal("12s (the task's ttl 12s)"))
		Expect(c.poll).To(Equal(time.Second))
		Expect(c.pollWhy).To(Equal("every 1s, the task's pollInterval"))
	})

	It("caps a long ttl, and an unlimited one, at wirecheck's maximum, naming it and the param that sets it", func() {
		c := clock(`{"ttl":300000}`, nil)
		Expect(c.bound).To(Equal(taskWaitCap))
		Expect(c.waited()).To(Equal("30s (the task's ttl 5m0s, capped at 30s (wirecheck's maximum wait for a task; --param mcp-task-wait=DURATION sets it))"))
		c = clock(`{"ttl":null}`, nil)
		Expect(c.bound).To(Equal(taskWaitCap))
		Expect(c.waited()).To(ContainSubstring("the task's ttl is null (unlimited): 30s, wirecheck's maximum wait for a task"))
		c = clock(`{"ttl":null}`, map[string]string{TaskWaitParam: "2m"})
		Expect(c.bound).To(Equal(2 * time.Minute))
		Expect(c.waited()).To(ContainSubstring("--param mcp-task-wait"))
	})

	It("waits no less than --timeout, and --timeout for a task declaring no ttl", func() {
		Expect(clock(`{"ttl":100}`, nil).bound).To(Equal(5 * time.Second))
		c := clock(`{}`, nil)
		Expect(c.bound).To(Equal(5 * time.Second))
		Expect(c.waited()).To(ContainSubstring("the task declares no ttl"))
	})

	It("polls a task declaring no pollInterval every 100 ms, and one declaring 0 no faster than every 10 ms", func() {
		Expect(clock(`{"ttl":60000}`, nil).poll).To(Equal(defaultPoll))
		Expect(clock(`{"ttl":60000,"pollInterval":0}`, nil).poll).To(Equal(minPoll))
	})

	It("refuses a --param mcp-task-wait that is no positive duration", func() {
		_, err := newTaskClock(env(map[string]string{TaskWaitParam: "soon"}), frame(`{"result":{"task":{"ttl":1}}}`), time.Now(),
			"/result/task/ttl", "/result/task/pollInterval")
		Expect(err).To(MatchError(ContainSubstring("--param mcp-task-wait=soon: not a positive duration")))
	})

	It("reads the extension's ttlMs and pollIntervalMs", func() {
		c, err := newTaskClock(env(nil), frame(`{"result":{"ttlMs":20000,"pollIntervalMs":250}}`), time.Now(), "/result/ttlMs", "/result/pollIntervalMs")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.bound).To(Equal(20 * time.Second))
		Expect(c.poll).To(Equal(250 * time.Millisecond))
		Expect(c.waited()).To(Equal("20s (the task's ttlMs 20s)"))
	})
})
