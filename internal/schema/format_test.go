package schema_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/schemas"
)

// The formats the official schemas name are part of their contract:
// MCP's blob and data are "byte" (base64), which jsonschema/v6 does not
// know; without a checker any string would pass.
var _ = Describe("formats", func() {
	var reg *schema.Registry
	BeforeEach(func() {
		var err error
		reg, err = schema.Open(schemas.FS, "mcp")
		Expect(err).NotTo(HaveOccurred())
	})

	validate := func(ref, frame string) error {
		s := reg.Get(ref)
		Expect(s).NotTo(BeNil(), ref)
		v, err := schema.Decode([]byte(frame))
		Expect(err).NotTo(HaveOccurred())
		return s.Validate(v)
	}

	for _, rev := range []string{"2024-11-05/schema.json#/definitions", "2025-06-18/schema.json#/definitions", "2025-11-25/schema.json#/$defs", "2026-07-28/schema.json#/$defs"} {
		DescribeTable("a blob is base64 ("+rev+")",
			func(blob string, ok bool) {
				frame := `{"uri": "wirecheck://b", "blob": "` + blob + `"}`
				err := validate(rev+"/BlobResourceContents", frame)
				if ok {
					Expect(err).NotTo(HaveOccurred())
				} else {
					Expect(err).To(HaveOccurred())
					Expect(schema.Explain(err)).To(ContainSubstring("base64"))
				}
			},
			Entry("padded", "aGVsbG8=", true),
			Entry("unpadded (a decoder can add the padding)", "aGVsbG8", true),
			Entry("empty", "", true),
			Entry("plain text", "this is not base64!", false),
			Entry("the URL-safe alphabet", "-_-_", false),
			Entry("an impossible length", "aGVsb", false),
		)
	}

	It("judges an image's data too", func() {
		err := validate("2025-06-18/schema.json#/definitions/ImageContent", `{"type": "image", "mimeType": "image/png", "data": "not base64 at all"}`)
		Expect(err).To(HaveOccurred())
	})

	It("still asserts the formats jsonschema knows (uri)", func() {
		err := validate("2025-06-18/schema.json#/definitions/TextResourceContents", `{"uri": "not a uri", "text": "x"}`)
		Expect(err).To(HaveOccurred())
	})
})
