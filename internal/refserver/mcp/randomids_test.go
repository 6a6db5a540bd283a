package mcp_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The variant random-ids makes its taskIds and cursors anew each run: a
// client that kept one from another run (a reproducer that repeated
// them) is asked about a task or a page the server never made.
var _ = Describe("the variant random-ids", func() {
	// made is a server's first tools/list cursor and the taskId of a
	// task-augmented call, on its client c.
	made := func() (c *client, cursor, taskID string) {
		c = ready(serve(false, nil, []string{"random-ids", "one-per-page"}), "2025-11-25")
		res, _ := c.post(call(2, "tools/list", "")).last()["result"].(map[string]any)
		cursor, _ = res["nextCursor"].(string)
		res, _ = c.post(call(3, "tools/call", `{"name":"add","arguments":{"a":1,"b":2},"task":{"ttl":60000}}`)).last()["result"].(map[string]any)
		task, _ := res["task"].(map[string]any)
		taskID, _ = task["taskId"].(string)
		Expect(cursor).NotTo(BeEmpty())
		Expect(taskID).NotTo(BeEmpty())
		return c, cursor, taskID
	}

	It("makes other taskIds and cursors in each run, and knows only its own", func() {
		c1, cursor1, task1 := made()
		c2, cursor2, task2 := made()
		Expect(cursor2).NotTo(Equal(cursor1))
		Expect(task2).NotTo(Equal(task1))
		for _, c := range []*client{c1, c2} {
			own, other := cursor1, cursor2
			ownTask, otherTask := task1, task2
			if c == c2 {
				own, other, ownTask, otherTask = cursor2, cursor1, task2, task1
			}
			Expect(c.post(call(4, "tools/list", `{"cursor":"`+own+`"}`)).last()).To(HaveKey("result"))
			Expect(c.post(call(5, "tools/list", `{"cursor":"`+other+`"}`)).last()).To(HaveKey("error"))
			Expect(c.post(call(6, "tasks/get", `{"taskId":"`+ownTask+`"}`)).last()).To(HaveKey("result"))
			Expect(c.post(call(7, "tasks/get", `{"taskId":"`+otherTask+`"}`)).last()).To(HaveKey("error"))
		}
	})
})
