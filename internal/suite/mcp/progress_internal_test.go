package mcp

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("the order of a request's progress (MCP-PROGRESS-2)", func() {
	// progress judges, in a process that was sent request "7" with progress
	// token "t" and read its response on via (line 5), progress
	// notifications read later on the given streams.
	progress := func(response *transport.Via, vals []string, vias ...*transport.Via) []verdict.Observation {
		var got []verdict.Observation
		e := &scenario.Env{Observe: func(o verdict.Observation) {
			if o.Rule == "MCP-PROGRESS-2" {
				got = append(got, o)
			}
		}}
		call := &peer.Call{Key: "7", Method: "tools/call"}
		if response != nil {
			call.Response = &peer.Inbound{Seq: 5, HTTP: response}
		}
		j := NewJudge(nil).(*judge)
		j.shook = true
		j.progress[peer.Key("t")] = &tracked{call: call}
		for i, v := range vals {
			raw := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":` + v + `}}`)
			val, err := schema.Decode(raw)
			Expect(err).NotTo(HaveOccurred())
			j.Received(&peer.Inbound{Seq: 6 + i, Raw: raw, Value: val, HTTP: vias[i], Kind: &spec.Kind{Role: spec.RoleNotification}}, "", e)
		}
		return got
	}
	post := &transport.Via{Verb: http.MethodPost, For: "7", Exchange: 3}
	get := &transport.Via{Verb: http.MethodGet, Exchange: 2}

	It("fails a progress after the response on the response's own stream (stdio: one stream)", func() {
		got := progress(&transport.Via{}, []string{"1"}, &transport.Via{})
		got = append(got, progress(nil, []string{"2", "1"}, nil, nil)...)
		Expect(got).To(HaveLen(3))
		Expect(got[0].Verdict).To(Equal(verdict.Fail))
		Expect(got[0].Message).To(ContainSubstring("after the response"))
		Expect(got[2].Verdict).To(Equal(verdict.Fail))
		Expect(got[2].Message).To(ContainSubstring("progress went from 2 to 1"))
	})

	It("does not fail a progress read after the response from another stream: it may have been written before", func() {
		got := progress(post, []string{"1"}, get)
		Expect(got).To(ConsistOf(HaveField("Verdict", verdict.Skip)))
		Expect(got[0].Message).To(ContainSubstring("on another stream"))
	})

	It("compares progress values within one stream only", func() {
		got := progress(nil, []string{"2", "1", "3"}, post, get, post)
		Expect(got).To(HaveLen(3))
		for _, o := range got {
			Expect(o.Verdict).To(Equal(verdict.Pass), o.Message)
		}
		Expect(progress(nil, []string{"2", "1"}, get, get)[1].Verdict).To(Equal(verdict.Fail))
	})
})
