package mcp

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the skills extension's helpers", func() {
	It("parses SKILL.md frontmatter as JSON would give it, CRLF or LF, and refuses a file without one", func() {
		fm, err := frontmatter("---\r\nname: refunds\r\ndescription: \"Refund, politely\"\r\nmetadata:\r\n  version: 2\r\n---\r\n# Body\r\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(normalize(fm)).To(Equal(normalize(map[string]any{"name": "refunds", "description": "Refund, politely", "metadata": map[string]any{"version": 2}})))
		_, err = frontmatter("# No frontmatter\n")
		Expect(err).To(HaveOccurred())
		_, err = frontmatter("---\nname: open\n")
		Expect(err).To(HaveOccurred())
	})

	It("tells which direct child of a skill's root a directory read left out, by the manifest", func() {
		list := []any{
			map[string]any{"uri": "skill://a/b/SKILL.md"},
			map[string]any{"uri": "skill://a/b/refs/x.md"},
		}
		Expect(missingChildren("skill://a/b", list, map[string]string{"skill://a/b/SKILL.md": "text/markdown", "skill://a/b/refs": "inode/directory"})).To(BeEmpty())
		Expect(missingChildren("skill://a/b", list, map[string]string{"skill://a/b/SKILL.md": "text/markdown", "skill://a/b/refs/x.md": "text/markdown"})).To(Equal("skill://a/b/refs (a directory)"))
		Expect(missingChildren("skill://a/b", list, map[string]string{"skill://a/b/refs": "inode/directory"})).To(Equal("skill://a/b/SKILL.md"))
	})

	It("holds skill names to the Agent Skills rules", func() {
		for _, ok := range []string{"git-workflow", "a", "pdf2-x"} {
			Expect(skillName.MatchString(ok)).To(BeTrue(), ok)
		}
		for _, bad := range []string{"Git", "-a", "a-", "a--b", "a_b", ""} {
			Expect(skillName.MatchString(bad)).To(BeFalse(), bad)
		}
	})
})
