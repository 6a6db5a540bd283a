package httpserve_test

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/refserver"
)

// get asks the listener of s for path and returns the status.
func get(s *httpserve.Server, path string) int {
	resp, err := http.Get(strings.TrimSuffix(s.Endpoint(), "/mcp") + path)
	Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	return resp.StatusCode
}

var _ = Describe("the client's discovery of the authorization server's metadata", func() {
	const (
		oauthIns = "/.well-known/oauth-authorization-server" + httpserve.ASPath
		oidcIns  = "/.well-known/openid-configuration" + httpserve.ASPath
		oidcApp  = httpserve.ASPath + "/.well-known/openid-configuration"
		oauth    = "/.well-known/oauth-authorization-server"
		oidc     = "/.well-known/openid-configuration"
	)

	// An issuer with a path, its metadata at the appended URI alone.
	DescribeTable("an issuer with a path: the priority order, every URI asked when none answers",
		func(paths []string, pass bool) {
			s, rec := listen(false, httpserve.Settings{})
			protect(s, httpserve.Auth{ASMetadata: httpserve.MetadataAppended})
			for _, p := range paths {
				get(s, p)
			}
			s.Protect(nil)
			if pass {
				Expect(rec.PassedOnly(httpserve.CheckAuthASOrder)).To(BeTrue())
			} else {
				Expect(rec.Failed(httpserve.CheckAuthASOrder)).To(BeTrue())
			}
		},
		Entry("the three in order", []string{oauthIns, oidcIns, oidcApp}, true),
		Entry("a URI outside the list between two of it", []string{oauthIns, oauth, oidcIns, oidcApp}, true),
		Entry("one asked twice", []string{oauthIns, oauthIns, oidcIns, oidcApp}, true),
		Entry("OpenID Connect's first", []string{oidcIns, oauthIns, oidcApp}, false),
		Entry("the root URI first", []string{oauth, oauthIns, oidcIns, oidcApp}, false),
		Entry("the inserted OpenID Connect URI skipped", []string{oauthIns, oidcApp}, false),
		Entry("given up after RFC 8414's", []string{oauthIns}, false),
		Entry("given up after two", []string{oauthIns, oidcIns}, false),
	)

	DescribeTable("an issuer without a path: both URIs, in either order",
		func(paths []string, pass bool) {
			s, rec := listen(false, httpserve.Settings{})
			protect(s, httpserve.Auth{ASRoot: true, ASMetadata: httpserve.MetadataOpenID})
			for _, p := range paths {
				get(s, p)
			}
			s.Protect(nil)
			if pass {
				Expect(rec.PassedOnly(httpserve.CheckAuthASRoot)).To(BeTrue())
			} else {
				Expect(rec.Failed(httpserve.CheckAuthASRoot)).To(BeTrue())
			}
			Expect(rec.Verdicts(httpserve.CheckAuthASOrder)).To(BeEmpty(), "the order of an issuer with a path is not this one's")
		},
		Entry("RFC 8414's, then OpenID Connect's", []string{oauth, oidc}, true),
		Entry("OpenID Connect's alone", []string{oidc}, true),
		Entry("given up after RFC 8414's", []string{oauth}, false),
	)

	It("serves the metadata where the variant puts it", func() {
		s, _ := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{ASMetadata: httpserve.MetadataAppended})
		Expect([]int{get(s, oauthIns), get(s, oidcIns), get(s, oidcApp)}).To(Equal([]int{404, 404, 200}))
		s, _ = listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{ASRoot: true, ASMetadata: httpserve.MetadataOpenID})
		Expect([]int{get(s, oauth), get(s, oidc)}).To(Equal([]int{404, 200}))
	})

	DescribeTable("the reference client, its variants and faults",
		func(a httpserve.Auth, o refserver.Options, check string, pass bool) {
			rec := refClientAgainstWith(a, o)
			if pass {
				Expect(rec.PassedOnly(check)).To(BeTrue(), check)
			} else {
				Expect(rec.Failed(check)).To(BeTrue(), check)
			}
		},
		Entry("falls back to the appended URI", httpserve.Auth{ASMetadata: httpserve.MetadataAppended}, refserver.Options{}, httpserve.CheckAuthASOrder, true),
		Entry("no-oidc does not", httpserve.Auth{ASMetadata: httpserve.MetadataAppended}, refserver.Options{Faults: []string{"no-oidc"}}, httpserve.CheckAuthASOrder, false),
		Entry("falls back to OpenID Connect's root URI", httpserve.Auth{ASRoot: true, ASMetadata: httpserve.MetadataOpenID}, refserver.Options{}, httpserve.CheckAuthASRoot, true),
		Entry("oidc-root-first asks it first", httpserve.Auth{ASRoot: true, ASMetadata: httpserve.MetadataOpenID}, refserver.Options{Variants: []string{"oidc-root-first"}}, httpserve.CheckAuthASRoot, true),
		Entry("no-oidc gives up at the root", httpserve.Auth{ASRoot: true, ASMetadata: httpserve.MetadataOpenID}, refserver.Options{Faults: []string{"no-oidc"}}, httpserve.CheckAuthASRoot, false),
		Entry("asks offline_access where offered, registered for refresh tokens", httpserve.Auth{ASScopes: []string{"mcp", "offline_access"}}, refserver.Options{}, httpserve.CheckAuthGrantTypes, true),
		Entry("refresh-unregistered does not register for them", httpserve.Auth{ASScopes: []string{"mcp", "offline_access"}}, refserver.Options{Faults: []string{"refresh-unregistered"}}, httpserve.CheckAuthGrantTypes, false),
		Entry("asks no offline_access where not offered", httpserve.Auth{}, refserver.Options{}, httpserve.CheckAuthOffline, true),
		Entry("offline-always asks it all the same", httpserve.Auth{}, refserver.Options{Faults: []string{"offline-always"}}, httpserve.CheckAuthOffline, false),
		Entry("compares an unadvertised iss", httpserve.Auth{Iss: httpserve.IssOther, IssUnadvertised: true}, refserver.Options{}, httpserve.CheckAuthIss, true),
		Entry("iss-only-when-advertised redeems it", httpserve.Auth{Iss: httpserve.IssOther, IssUnadvertised: true}, refserver.Options{Faults: []string{"iss-only-when-advertised"}}, httpserve.CheckAuthIss, false),
		Entry("redeems the code of the issuer's iss unadvertised", httpserve.Auth{IssUnadvertised: true, IssProceed: true}, refserver.Options{}, httpserve.CheckAuthIss, true),
		Entry("iss-strict does not", httpserve.Auth{IssUnadvertised: true, IssProceed: true}, refserver.Options{Faults: []string{"iss-strict"}}, httpserve.CheckAuthIss, false),
		Entry("redeems the code of a response without iss, unadvertised", httpserve.Auth{IssAbsent: true, IssProceed: true}, refserver.Options{}, httpserve.CheckAuthIss, true),
		Entry("iss-strict does not, there either", httpserve.Auth{IssAbsent: true, IssProceed: true}, refserver.Options{Faults: []string{"iss-strict"}}, httpserve.CheckAuthIss, false),
	)

	It("does not judge the grant types of a client that wants no refresh token", func() {
		s, rec := listen(false, httpserve.Settings{})
		protect(s, httpserve.Auth{ASScopes: []string{"mcp", "offline_access"}})
		Expect(refClientWith(s, refserver.Options{Variants: []string{"no-refresh"}})).To(Equal(0))
		s.Protect(nil)
		Expect(rec.Verdicts(httpserve.CheckAuthGrantTypes)).To(BeEmpty())
		Expect(rec.PassedOnly(httpserve.CheckAuthOffline)).To(BeTrue())
	})
})
