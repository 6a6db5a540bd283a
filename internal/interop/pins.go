package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir is test/interop, where the real servers are pinned and installed.
func Dir() string { return filepath.Join(Root(), "test", "interop") }

// NPMVersion is the version test/interop/package.json pins a package at
// (the lock beside it resolves the rest of the tree).
func NPMVersion(pkg string) (string, error) {
	b, err := os.ReadFile(filepath.Join(Dir(), "package.json"))
	if err != nil {
		return "", err
	}
	var p struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("test/interop/package.json: %w", err)
	}
	v, ok := p.Dependencies[pkg]
	if !ok {
		return "", fmt.Errorf("test/interop/package.json pins no %s", pkg)
	}
	return v, nil
}

// GoServer is a line of test/interop/go-servers.txt: a main package at a
// version, installed into Dir/Folder.
type GoServer struct {
	Folder, Package, Version string
}

// Bin is where install.sh puts the server's binary.
func (g GoServer) Bin() string {
	return filepath.Join(Dir(), g.Folder, filepath.Base(g.Package))
}

// GoServerOf is the pin of a main package in test/interop/go-servers.txt.
func GoServerOf(pkg string) (GoServer, error) {
	f, err := os.Open(filepath.Join(Dir(), "go-servers.txt"))
	if err != nil {
		return GoServer{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		path, version, _ := strings.Cut(fields[1], "@")
		if path == pkg {
			return GoServer{Folder: fields[0], Package: path, Version: version}, nil
		}
	}
	if err := sc.Err(); err != nil {
		return GoServer{}, err
	}
	return GoServer{}, fmt.Errorf("test/interop/go-servers.txt pins no %s", pkg)
}
