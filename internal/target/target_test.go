package target_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/target"
)

var _ = Describe("a target's check", func() {
	It("accepts KEY=VALUE environment entries (empty values too) and an existing folder", func() {
		Expect(target.Target{Argv: []string{"x"}, Env: []string{"A=1", "B="}, Cwd: GinkgoT().TempDir()}.Check()).To(Succeed())
		Expect(target.Target{Argv: []string{"x"}}.Check()).To(Succeed())
	})

	It("refuses an entry that is no KEY=VALUE, naming --env", func() {
		Expect(target.Target{Env: []string{"A=1", "NOEQUALS"}}.Check()).To(MatchError(`--env "NOEQUALS": want KEY=VALUE`))
		Expect(target.Target{Env: []string{"=1"}}.Check()).To(MatchError(`--env "=1": want KEY=VALUE`))
	})

	It("refuses a folder that does not exist or is a file, naming --cwd", func() {
		Expect(target.Target{Cwd: "/nonexistent/dir"}.Check()).To(MatchError(`--cwd "/nonexistent/dir": not a directory`))
		file := filepath.Join(GinkgoT().TempDir(), "f")
		Expect(os.WriteFile(file, nil, 0o644)).To(Succeed())
		Expect(target.Target{Cwd: file}.Check()).To(MatchError(`--cwd "` + file + `": not a directory`))
	})
})
