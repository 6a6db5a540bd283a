// Package testbin builds the wirecheck binary for tests that need a real
// server process (the reference servers are `wirecheck serve …`).
//
// One build serves every test process of the same sources: `go test
// ./...` runs a dozen packages that launch it, each its own process, and
// each paid for a `go build` of its own (a link at the least; on a fresh
// clone the whole module's compilation, several at once). The binary is
// kept under the system's temporary folder, in a folder named by a hash
// of what the build reads (the module's files and the toolchain), so a
// change to any of them builds afresh.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

var (
	once sync.Once
	path string
	err  error
)

// Wirecheck returns the path of a wirecheck binary built from this
// checkout as it is now.
func Wirecheck() (string, error) {
	once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		path, err = build(filepath.Join(filepath.Dir(file), "..", ".."))
	})
	return path, err
}

// cacheDir holds the built binaries, one folder per key.
var cacheDir = filepath.Join(os.TempDir(), "wirecheck-testbin")

// unusedFor is how long a binary no test has asked for stays: long enough
// for any test process still running against a checkout since edited.
const unusedFor = 2 * time.Hour

// build returns the binary of root's sources, building it unless a test
// process built it already. The lock keeps test processes started at
// once from building it side by side.
func build(root string) (string, error) {
	key, err := sourceKey(root)
	if err != nil {
		return "", fmt.Errorf("testbin: hashing the sources: %w", err)
	}
	dir := filepath.Join(cacheDir, key)
	bin := filepath.Join(dir, "wirecheck")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	// Used now: pruning leaves it be.
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".partial"
	cmd := exec.Command("go", "build", "-o", tmp, "./cmd/wirecheck")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	prune(key)
	return bin, nil
}

// prune removes the binaries of other keys no test asked for lately.
func prune(keep string) {
	entries, _ := os.ReadDir(cacheDir)
	for _, e := range entries {
		if e.Name() == keep || !e.IsDir() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > unusedFor {
			_ = os.RemoveAll(filepath.Join(cacheDir, e.Name()))
		}
	}
}

// sourceKey hashes what `go build ./cmd/wirecheck` reads in root: every
// file of the module but tests, version control and what builds leave
// (a file the build ignores only costs a needless rebuild), and the
// toolchain and environment that decide the build. Dependencies are
// pinned by go.sum, which is among the files.
func sourceKey(root string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, v := range []string{"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOAMD64", "GOTOOLCHAIN", "PATH"} {
		fmt.Fprintf(h, "%s=%s\n", v, os.Getenv(v))
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" ||
				rel == "bin" || rel == "reports" || rel == "test") {
				return filepath.SkipDir
			}
			return nil
		}
		// Besides tests: binaries built in the tree (.gitignore's).
		if !d.Type().IsRegular() || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".test") || name == "wirecheck" {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		_, err = io.Copy(h, f)
		fmt.Fprint(h, "\x00")
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}
