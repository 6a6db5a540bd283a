// Package testbin builds the wirecheck binary once per test process, for
// tests that need a real server process (the reference servers are
// `wirecheck serve …`).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

var (
	once sync.Once
	path string
	err  error
)

// Wirecheck returns the path of a freshly built wirecheck binary. The
// binary lives in a temporary folder removed by Cleanup.
func Wirecheck() (string, error) {
	once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir, derr := os.MkdirTemp("", "wirecheck-testbin-")
		if derr != nil {
			err = derr
			return
		}
		path = filepath.Join(dir, "wirecheck")
		cmd := exec.Command("go", "build", "-o", path, "./cmd/wirecheck")
		cmd.Dir = root
		if out, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("go build: %v\n%s", berr, out)
		}
	})
	return path, err
}

// Cleanup removes the built binary.
func Cleanup() {
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
}
