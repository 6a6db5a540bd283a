package httpmcp_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
)

var _ = Describe("what an exchange got, in a few words (Result.Describe)", func() {
	upper := func(b []byte) string { return strings.ToUpper(string(b)) }

	It("says no answer without a status", func() {
		var none *httpmcp.Result
		Expect(none.Describe(upper)).To(Equal("no answer"))
		Expect((&httpmcp.Result{}).Describe(upper)).To(Equal("no answer"))
	})

	It("gives the status, the Content-Type and the body as the caller renders it", func() {
		res := &httpmcp.Result{Status: 400, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("bad")}
		Expect(res.Describe(upper)).To(Equal("HTTP 400 text/plain: BAD"))
		Expect((&httpmcp.Result{Status: 202, Header: http.Header{}}).Describe(upper)).To(Equal("HTTP 202"))
	})
})
