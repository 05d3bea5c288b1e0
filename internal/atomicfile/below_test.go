package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMkdirBelow(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, root, victim string)
		rel     string
		wantErr error // nil: the directory is made
		bad     bool  // an error other than ErrLinkBelow
	}{
		{name: "new tree", rel: "a/b/c"},
		{name: "root itself", rel: "."},
		{name: "existing dirs", rel: "a/b", setup: func(t *testing.T, root, _ string) { mkdir(t, filepath.Join(root, "a", "b")) }},
		{name: "link to a dir outside", rel: "sub/x", wantErr: ErrLinkBelow, setup: func(t *testing.T, root, victim string) {
			mkdir(t, root)
			symlink(t, victim, filepath.Join(root, "sub"))
		}},
		{name: "link to a dir inside", rel: "b", wantErr: ErrLinkBelow, setup: func(t *testing.T, root, _ string) {
			mkdir(t, filepath.Join(root, "a"))
			symlink(t, "a", filepath.Join(root, "b"))
		}},
		{name: "deeper link", rel: "a/sub/x", wantErr: ErrLinkBelow, setup: func(t *testing.T, root, victim string) {
			mkdir(t, filepath.Join(root, "a"))
			symlink(t, victim, filepath.Join(root, "a", "sub"))
		}},
		{name: "a file on the path", rel: "f/x", wantErr: ErrLinkBelow, setup: func(t *testing.T, root, _ string) {
			mkdir(t, root)
			if err := os.WriteFile(filepath.Join(root, "f"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "dot dot", rel: "../x", bad: true},
		{name: "absolute", rel: "/tmp/x", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			root, victim := filepath.Join(base, "out"), filepath.Join(base, "victim")
			mkdir(t, victim)
			if tt.setup != nil {
				tt.setup(t, root, victim)
			}
			dir, err := MkdirBelow(root, tt.rel)
			switch {
			case tt.bad:
				if err == nil || errors.Is(err, ErrLinkBelow) {
					t.Fatalf("MkdirBelow(%q) = %v, want a not-inside error", tt.rel, err)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("MkdirBelow(%q) = %v, want %v", tt.rel, err, tt.wantErr)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
					t.Fatalf("%s is not a directory: %v", dir, err)
				}
			}
			if entries, _ := os.ReadDir(victim); len(entries) != 0 {
				t.Errorf("the victim directory outside got %d entries", len(entries))
			}
		})
	}
}

func TestMkdirBelowRootMayBeALink(t *testing.T) {
	base := t.TempDir()
	mkdir(t, filepath.Join(base, "real"))
	symlink(t, "real", filepath.Join(base, "out"))
	if _, err := MkdirBelow(filepath.Join(base, "out"), "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(base, "real", "a")); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("SKIP: no symbolic links here: %v", err)
	}
}
