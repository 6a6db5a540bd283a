package toolhost_test

import (
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

var _ = Describe("docs/silence.md", func() {
	It("lists every tool-host rule drawn from silence, and every preference, at its level", func() {
		data, err := os.ReadFile("../../../docs/silence.md")
		Expect(err).NotTo(HaveOccurred())
		doc := string(data)
		start := strings.Index(doc, "### tool-host")
		Expect(start).To(BeNumerically(">=", 0))
		section := doc[start:]
		if end := strings.Index(section[1:], "\n### "); end >= 0 {
			section = section[:end+1]
		}
		b, err := protocols.Load("tool-host")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range b.Protocol.Rules {
			if !strings.Contains(r.Quote, "(silent") && r.Level != verdict.May {
				continue
			}
			Expect(r.Level).NotTo(Equal(verdict.Must), "%s is drawn from silence: never MUST", r.ID)
			row := regexp.MustCompile(`(?m)^\| ` + regexp.QuoteMeta(r.ID) + ` \| (\w+)`).FindStringSubmatch(section)
			Expect(row).NotTo(BeNil(), "the tool-host table has no row for %s", r.ID)
			Expect(row[1]).To(Equal(string(r.Level)), "the level of %s in the table", r.ID)
		}
		for _, v := range b.Protocol.Variants {
			Expect(section).To(ContainSubstring("`"+v.Name+"`"), "variant %s is named", v.Name)
		}
	})
})
