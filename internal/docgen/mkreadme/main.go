// Command mkreadme rewrites the generated sections of README.md from a
// wirecheck binary's own output (`make readme`).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wirecheck/wirecheck/internal/docgen"
)

func main() {
	bin := flag.String("bin", "bin/wirecheck", "the wirecheck binary")
	flag.Parse()
	file := "README.md"
	if flag.NArg() > 0 {
		file = flag.Arg(0)
	}
	if err := rewrite(*bin, file); err != nil {
		fmt.Fprintln(os.Stderr, "mkreadme:", err)
		os.Exit(1)
	}
}

func rewrite(bin, file string) error {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mkreadme")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	secs, err := docgen.Gen{Bin: abs, Dir: dir}.Make()
	if err != nil {
		return err
	}
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := docgen.Apply(string(doc), secs)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if out == string(doc) {
		fmt.Println(file, "is up to date")
		return nil
	}
	fmt.Println("rewrote the generated sections of", file)
	return os.WriteFile(file, []byte(out), 0o644)
}
