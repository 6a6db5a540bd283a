package sophon

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver/mcp"
)

func TestSophonServer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sophon reference server Suite")
}

func request(token, kind string) mcp.Message {
	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp/http", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return mcp.Message{HTTP: r, Kind: kind, Method: "ping"}
}

var _ = Describe("the rate limit (60 requests a minute per token)", func() {
	It("serves a token's first 60 requests and refuses the 61st with -32004, 429 and Retry-After in seconds", func() {
		sv := &sophon{}
		for i := 0; i < perMinute; i++ {
			Expect(sv.limit(request("a", "request"))).To(BeNil(), "request %d", i+1)
		}
		rf := sv.limit(request("a", "request"))
		Expect(rf).NotTo(BeNil())
		Expect(rf.Code).To(Equal(-32004))
		Expect(rf.Status).To(Equal(http.StatusTooManyRequests))
		secs, err := strconv.Atoi(rf.Header.Get("Retry-After"))
		Expect(err).NotTo(HaveOccurred())
		Expect(secs).To(BeNumerically(">=", 1))
		Expect(secs).To(BeNumerically("<=", 60))
	})

	It("counts each token on its own, and requests only", func() {
		sv := &sophon{}
		for i := 0; i < perMinute; i++ {
			Expect(sv.limit(request("a", "request"))).To(BeNil())
		}
		Expect(sv.limit(request("a", "notification"))).To(BeNil())
		Expect(sv.limit(request("b", "request"))).To(BeNil())
		Expect(sv.limit(request("a", "request"))).NotTo(BeNil())
	})

	It("gives Retry-After as an HTTP date with the variant retry-after-date", func() {
		sv := &sophon{variants: map[string]bool{"retry-after-date": true}}
		var rf *mcp.Refusal
		for i := 0; i <= perMinute; i++ {
			rf = sv.limit(request("a", "request"))
		}
		Expect(rf).NotTo(BeNil())
		at, err := http.ParseTime(rf.Header.Get("Retry-After"))
		Expect(err).NotTo(HaveOccurred())
		Expect(at).To(BeTemporally("~", time.Now(), time.Minute+time.Second))
	})
})
