package layering

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The architecture page (docs/architecture.md) was patched by every change
// until it named packages that had moved and left out packages that had
// come. Architecture holds it to the code: what it names exists, it names
// every package under internal/, its package table is the real import
// order, and its engine rows are Engine.

// pathRef is a repository path as the page writes one: a top folder, then
// a path. A "./" or a letter before it (go doc ./internal/<name>, a URL)
// is not one.
var pathRef = regexp.MustCompile(`(?:^|[^\w./-])((?:internal|cmd|conformance|specs|schemas|fixtures|docs|examples)/[\w./*-]*)`)

// goFile is any Go file the page names, with or without its folder.
var goFile = regexp.MustCompile(`[\w./-]+\.go\b`)

// packageRow is a row of the package table: its packages, in backticks,
// and its role ("engine" for the packages Engine lists).
var packageRow = regexp.MustCompile("^\\| *(`[^|]*`) *\\| *([^|]*?) *\\|")

// Architecture returns what is wrong with the architecture page doc,
// against the repository at root: paths and Go files it names that do not
// exist, packages under internal/ it does not name in its package table,
// a package importing one of a later row, engine rows that are not
// Engine. Empty when the page is true.
func Architecture(root, doc string) ([]string, error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	var bad []string
	named := map[string]bool{}
	for _, m := range pathRef.FindAllStringSubmatch(doc, -1) {
		p := strings.TrimRight(m[1], ".")
		named[strings.TrimRight(p, "/")] = true
		if !exists(root, p) {
			bad = append(bad, "names "+p+", which does not exist")
		}
	}
	for _, f := range goFile.FindAllString(doc, -1) {
		if !strings.Contains(f, "/") {
			bad = append(bad, "names "+f+" without its folder")
		} else if !exists(root, f) {
			bad = append(bad, "names "+f+", which does not exist")
		}
	}

	rows, engine := table(doc)
	if len(rows) == 0 {
		return append(bad, "has no package table (rows of `package` | role | …) under ## The packages"), nil
	}
	if !slices.Equal(sortedKeys(engine), sorted(Engine)) {
		bad = append(bad, fmt.Sprintf("marks as engine %v; the layering test guards %v", sortedKeys(engine), sorted(Engine)))
	}
	pkgs, err := packages(root, "internal")
	if err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		if _, ok := rows[p]; !ok {
			bad = append(bad, "package table leaves out "+p)
		}
	}
	for _, p := range sortedKeys(rows) {
		dir := filepath.Join(root, filepath.FromSlash(p))
		if _, err := os.Stat(dir); err != nil {
			bad = append(bad, "package table names "+p+", which does not exist")
			continue
		}
		bp, err := build.Default.ImportDir(dir, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			bad = append(bad, "package table names "+p+", which has no Go package")
			continue
		} else if err != nil {
			return nil, err
		}
		for _, imp := range bp.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			switch r, listed := rows[rel]; {
			case !listed:
				bad = append(bad, fmt.Sprintf("%s imports %s, which the package table leaves out", p, rel))
			case r > rows[p]:
				bad = append(bad, fmt.Sprintf("%s imports %s, a package of a later row: the table is not the import order", p, rel))
			}
		}
	}
	return bad, nil
}

// table reads the package table of the page's "## The packages" section:
// each package's row number, and the packages of engine rows.
func table(doc string) (rows map[string]int, engine map[string]bool) {
	rows, engine = map[string]int{}, map[string]bool{}
	_, sec, ok := strings.Cut(doc, "\n## The packages")
	if !ok {
		return rows, engine
	}
	if end := strings.Index(sec, "\n## "); end >= 0 {
		sec = sec[:end]
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(sec))
	for sc.Scan() {
		m := packageRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n++
		for _, name := range strings.Split(m[1], ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			rows[name] = n
			if m[2] == "engine" {
				engine[strings.TrimPrefix(name, "internal/")] = true
			}
		}
	}
	return rows, engine
}

// packages lists the directories under root's folder under holding a
// non-test Go file, slash-separated and relative to root; testdata and
// hidden folders are the go tool's to ignore and so are ours.
func packages(root, under string) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(filepath.Join(root, under), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			set[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return sortedKeys(set), err
}

// exists says whether the path (a glob when it has a *) names something
// in root.
func exists(root, p string) bool {
	full := filepath.Join(root, filepath.FromSlash(p))
	if strings.Contains(p, "*") {
		m, _ := filepath.Glob(full)
		return len(m) > 0
	}
	_, err := os.Stat(full)
	return err == nil
}

func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", errors.New("go.mod names no module")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
