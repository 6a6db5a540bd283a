package schema_test

import (
	"io/fs"
	"sync/atomic"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/schema"
)

// countingFS counts the opens of each file: a compiler reads a file once
// and keeps it decoded for later compiles.
type countingFS struct {
	fs.FS
	opens map[string]*atomic.Int32
}

func (c countingFS) Open(name string) (fs.File, error) {
	if n := c.opens[name]; n != nil {
		n.Add(1)
	}
	return c.FS.Open(name)
}

// Settle lets the decoded documents go once a run's schemas are compiled:
// the settled schemas are kept, and a schema asked for later is compiled
// by a compiler that reads its file again.
var _ = Describe("Settle", func() {
	It("keeps the compiled schemas and drops the decoded files", func() {
		fsys := countingFS{FS: fstest.MapFS{"p/d.json": {Data: []byte(`{"$defs": {"a": {"type": "string"}, "b": {"type": "integer"}}}`)}},
			opens: map[string]*atomic.Int32{"p/d.json": {}}}
		reg, err := schema.Open(fsys, "p")
		Expect(err).NotTo(HaveOccurred())
		reg.Settle([]string{"d.json#/$defs/a", "no-such.json"})
		Expect(fsys.opens["p/d.json"].Load()).To(BeEquivalentTo(1))
		a := reg.Get("d.json#/$defs/a")
		Expect(a).NotTo(BeNil())
		Expect(a.Validate("x")).To(Succeed())
		Expect(fsys.opens["p/d.json"].Load()).To(BeEquivalentTo(1), "a settled schema is not compiled again")

		b := reg.Get("d.json#/$defs/b")
		Expect(b).NotTo(BeNil())
		Expect(b.Validate(1.0)).To(Succeed())
		Expect(fsys.opens["p/d.json"].Load()).To(BeEquivalentTo(2), "the file, let go, is read again")
		Expect(reg.Get("d.json#/$defs/a")).To(BeIdenticalTo(a))
	})
})
