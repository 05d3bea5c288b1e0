package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrLinkBelow is MkdirBelow's error for a symbolic link (or anything
// that is not a directory) on the path below the directory the user
// named: following it could put a file outside that directory.
var ErrLinkBelow = errors.New("is a symbolic link or not a directory: nothing is written through it")

// MkdirBelow makes root/rel a directory, creating root and every missing
// directory below it one at a time, and refuses a symbolic link, or any
// other non-directory, on the path below root (root itself may be a link:
// the user named it). rel must be relative and stay inside root ("" or
// "." is root itself). It returns root/rel.
//
// A directory that exists is looked at with Lstat, never followed; one
// this call creates is made with Mkdir, which never follows a link at its
// name, and looked at again, so a link made in between is refused too.
func MkdirBelow(root, rel string) (string, error) {
	rel = filepath.Clean(rel)
	if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: %q is not a path inside it", root, rel)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	dir := root
	if rel == "." {
		return dir, nil
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		st, err := os.Lstat(dir)
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return "", fmt.Errorf("%s %w", dir, ErrLinkBelow)
		}
	}
	return dir, nil
}
