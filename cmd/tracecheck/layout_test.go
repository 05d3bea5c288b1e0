package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const modulePath = "github.com/tracecheck/tracecheck"

// modulePackages returns every package of the module (directory relative
// to the root, "cmd" for cmd/tracecheck) with the module packages its
// non-test files import, and whether one of its files has a package doc
// comment.
func modulePackages(t *testing.T) (imports map[string][]string, documented map[string]bool) {
	t.Helper()
	imports, documented = map[string][]string{}, map[string]bool{}
	err := walkGoFiles(func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, filepath.Dir(path))
		pkg := pkgName(filepath.ToSlash(rel))
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Doc != nil {
			documented[pkg] = true
		} else if _, ok := documented[pkg]; !ok {
			documented[pkg] = false
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if p == modulePath || strings.HasPrefix(p, modulePath+"/") {
				imports[pkg] = append(imports[pkg], pkgName(strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/")))
			}
		}
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports, documented
}

// walkGoFiles calls fn with the path of every .go file of the module,
// leaving out hidden folders, testdata, node_modules and bin.
func walkGoFiles(fn func(path string) error) error {
	return filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != repoRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return fn(path)
	})
}

func pkgName(rel string) string {
	if rel == "cmd/tracecheck" {
		return "cmd"
	}
	return rel
}

// reaches reports whether package a imports b, directly or through others.
func reaches(imports map[string][]string, a, b string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(p string) bool {
		if seen[p] {
			return false
		}
		seen[p] = true
		for _, q := range imports[p] {
			if q == b || walk(q) {
				return true
			}
		}
		return false
	}
	return walk(a)
}

// TestDependenciesPointOneWay checks the Layout (docs/development.md) against the
// imports: every arrow "a → b" of its dependency sentence holds (a imports
// b, directly or not) and never the other way round; nothing imports cmd;
// journal imports only journal/jsonv, schema and internal/; every package
// has a doc comment.
func TestDependenciesPointOneWay(t *testing.T) {
	imports, documented := modulePackages(t)
	for pkg, ok := range documented {
		if !ok {
			t.Errorf("package %s has no doc comment", pkg)
		}
	}
	for pkg, deps := range imports {
		for _, d := range deps {
			if strings.HasPrefix(d, "cmd/") || d == "cmd" {
				t.Errorf("%s imports %s: nothing imports cmd", pkg, d)
			}
			if pkg == "journal" && d != "journal/jsonv" && d != "schema" && !strings.HasPrefix(d, "internal/") {
				t.Errorf("journal imports %s: journal imports only journal/jsonv, schema and internal/", d)
			}
		}
	}

	readme := mustRead(t, filepath.Join(repoRoot, "docs", "development.md"))
	_, sentence, ok := strings.Cut(readme, "Dependencies point one way")
	if !ok {
		t.Fatal("docs/development.md has no dependency sentence")
	}
	sentence, _, _ = strings.Cut(sentence, ". Nothing imports")
	_, sentence, _ = strings.Cut(sentence, ":")
	arrows := 0
	for _, chain := range strings.Split(sentence, ";") {
		var prev []string
		for _, step := range strings.Split(chain, "→") {
			var names []string
			for _, n := range regexp.MustCompile(`[a-z][a-z/]*`).FindAllString(step, -1) {
				if _, ok := imports[n]; !ok {
					t.Errorf("the dependency sentence names %s, which is no package", n)
				}
				names = append(names, n)
			}
			for _, a := range prev {
				for _, b := range names {
					arrows++
					if !reaches(imports, a, b) {
						t.Errorf("the README says %s → %s, but %s does not import %s", a, b, a, b)
					}
					if reaches(imports, b, a) {
						t.Errorf("the README says %s → %s, but %s imports %s", a, b, b, a)
					}
				}
			}
			prev = names
		}
	}
	if arrows < 10 {
		t.Errorf("read only %d arrows from the dependency sentence: %q", arrows, sentence)
	}
}

// TestEveryTestBinaryAcceptsUpdate keeps `go test ./... -update` (the
// README's way to regenerate goldens) working: a test binary that does not
// link goldie rejects -update with "flag provided but not defined" and fails
// the whole run, so every package with tests imports goldie in one of its
// test files (update_flag_test.go where it has no goldens of its own).
func TestEveryTestBinaryAcceptsUpdate(t *testing.T) {
	const goldie = "github.com/sebdah/goldie/v2"
	hasTests, links := map[string]bool{}, map[string]bool{}
	err := walkGoFiles(func(path string) error {
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		hasTests[rel] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == goldie {
				links[rel] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range hasTests {
		if !links[dir] {
			t.Errorf("%s has tests but none of its test files imports %s: `go test ./... -update` fails there (add an update_flag_test.go like agentlog/jsonpeek's)", dir, goldie)
		}
	}
}
