package protocols_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("the documents the specs cite", func() {
	It("are each declared with a title and, for a seed file, its sha256, in every revision", func() {
		hash := regexp.MustCompile(`^[0-9a-f]{64}$`)
		for _, id := range protocols.AllIDs() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			revs := []string{""}
			if b.Protocol.Versions != nil {
				revs = b.Protocol.Versions.IDs()
			}
			for _, rev := range revs {
				p := b.Protocol
				if rev != "" {
					p, err = p.ForVersion(rev)
					Expect(err).NotTo(HaveOccurred())
				}
				for _, r := range p.Rules {
					Expect(p.DocTitle(r)).NotTo(BeEmpty(), "%s %s: rule %s cites %q, which has no title", id, rev, r.ID, p.DocOf(r))
				}
				Expect(p.Cited()).NotTo(BeEmpty(), "%s %s", id, rev)
				for _, d := range p.Cited() {
					if filepath.Ext(d.File) == ".txt" {
						Expect(d.SHA256).To(MatchRegexp(hash.String()), "%s: %s pins its text", id, d.Name)
					}
				}
			}
		}
	})

	It("are the texts the seeds hold, where the machine has them", func() {
		dir := os.Getenv("WIRECHECK_SHARED")
		if dir == "" {
			dir = "/work/shared"
		}
		if _, err := os.Stat(filepath.Join(dir, "seeds")); err != nil {
			Skip("no seed documents at " + dir + " (set WIRECHECK_SHARED): their hashes are checked where they are")
		}
		for _, id := range protocols.AllIDs() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			for _, d := range b.Protocol.Documents {
				if filepath.Ext(d.File) != ".txt" {
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, "..", d.File))
				Expect(err).NotTo(HaveOccurred())
				Expect(sha256Hex(data)).To(Equal(d.SHA256), "%s: %s", id, d.Name)
			}
		}
	})
})

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
