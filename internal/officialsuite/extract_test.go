package officialsuite_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/officialsuite"
)

// bundle is a bundle laid out as the suite's is: a client scenario, the
// server scenarios (each helper ahead of its class), an authorization
// scenario after them, and the runner's schema check elsewhere.
var bundle = strings.Join([]string{
	"function rt(e){a.push({id:`wire-schema-valid`,name:`WireSchemaValid`,description:`d`})}",
	"var Cl=class{constructor(){this.name=`client-scenario`}getChecks(){this.checks.push({id:`client-only-check`,name:`ClientOnly`});return this.checks}};",
	"const Cn=/x/;var Tn=class{constructor(){this.name=`server-initialize`}async run(e){t.push({id:`server-initialize`,name:`ServerInitialize`,description:`d`});let x={id:`MCP-Session`,url:`u`}}};",
	"function Kn(e){return a(`tools-list-order`,`ToolsListOrder`,`d`)}var qn=class{constructor(){this.name=`tools-list`}async run(e){let r=1;if(r){let q={a:1}};t.push({id:`tools-list`,name:`ToolsList`});if(r){let q={a:{b:1}}};let z=2;for(let m of[`ping`])await a(`sep-9-not-found-${m}`,`NotFound${m}`,`d`)}};",
	"const Fa=`sep-2243-server-reject-invalid-headers`,Ia=`sep-2243-mismatch`;var Sk=class{constructor(){this.name=`sep-2640-skills-manifest`}async run(){n.push(P(`sep-2640-skillmd-required`,`d`,`SUCCESS`));{let e=`tasks-thing-bootstrap`,r=`TasksThingBootstrap`}}};",
	"var Hv=class{constructor(){this.name=`http-custom-header-server-validation`}async run(){n.push({id:Fa,name:`X`})}};",
	"const q={RFC:{id:`RFC-9728`,url:`u`}};var Au=class{constructor(){this.name=`auth/basic-cimd`}async run(){this.checks.push({id:`authorization-request`,name:`AuthorizationRequest`})}};",
}, "")

var _ = Describe("reading the suite's check ids from its bundle", func() {
	It("finds every shape of server check id, with the scenario whose code holds it, and no client or authorization check", func() {
		checks, scenarios, err := officialsuite.BundleChecks([]byte(bundle))
		Expect(err).NotTo(HaveOccurred())
		Expect(scenarios).To(Equal([]string{"server-initialize", "tools-list", "sep-2640-skills-manifest", "http-custom-header-server-validation"}))
		Expect(checks).To(Equal(map[string]string{
			"server-initialize":                      "server-initialize",
			"tools-list":                             "tools-list",
			"tools-list-order":                       "tools-list",               // a helper ahead of its class
			"sep-9-not-found-*":                      "tools-list",               // built in a loop, after a block ending }};let
			"sep-2243-server-reject-invalid-headers": "sep-2640-skills-manifest", // declared ahead: where it sits
			"sep-2243-mismatch":                      "sep-2640-skills-manifest",
			"sep-2640-skillmd-required":              "sep-2640-skills-manifest", // a skills helper's id
			"tasks-thing-bootstrap":                  "sep-2640-skills-manifest", // a pair of declarations
			"wire-schema-valid":                      officialsuite.AnyScenario,
		}))
	})

	It("finds the client checks outside the server and authorization-server scenarios, but the runner's schema checks", func() {
		b := bundle + "var Az=class{constructor(){this.name=`authorization-code-grant`,this.description=`**Authorization Server Implementation Requirements:** x`}run(){c.push({id:`authorization-code-grant`,name:`AuthorizationCodeGrant`})}};" +
			"var Hs=class{constructor(){this.name=`http-standard-headers`}run(){c.push({id:`sep-2243-client-includes-standard-headers`,name:`X`,specReferences:[{id:`SEP-2243`,url:`u`}]});let x={client_id:`not-an-id`}}};"
		checks, err := officialsuite.BundleClientChecks([]byte(b))
		Expect(err).NotTo(HaveOccurred())
		Expect(checks).To(Equal(map[string]string{
			"client-only-check":                         "client-scenario",
			"authorization-request":                     "auth/basic-cimd",
			"sep-2243-client-includes-standard-headers": "http-standard-headers",
		}))
	})

	It("says so when the bundle's layout is not the one it reads", func() {
		_, _, err := officialsuite.BundleChecks([]byte("var a=class{constructor(){this.name=`tools-list`}};"))
		Expect(err).To(MatchError(ContainSubstring("its layout changed")))
	})
})
