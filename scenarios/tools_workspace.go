package scenarios

// The workspace tools of the reference's lesson s04 (read_file; write_file
// and replace_text, used by s10) on a workspace held in memory: the files a
// scenario declares, as a clean Git checkout of them (lesson s13's
// checkpoints compare against that baseline). Paths are checked as the
// reference's Workspace does: non-empty, relative, and inside the root
// once "." and ".." are resolved.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// DefaultReadMaxChars is the reference's read_file limit: longer content
// is cut to it and the result says truncated: true.
const DefaultReadMaxChars = 20000

// workspace is the files the tools of one render act on: the working tree
// and the committed baseline (HEAD) it started from.
type workspace struct {
	files map[string]string
	head  map[string]string
}

// newWorkspace returns a clean checkout of files (paths already
// normalised by the decoder); nil is an empty workspace.
func newWorkspace(files map[string]string) *workspace {
	w := &workspace{files: map[string]string{}, head: map[string]string{}}
	maps.Copy(w.files, files)
	maps.Copy(w.head, files)
	return w
}

// resolveRelative is the reference's Workspace.resolve: the path relative
// to the root, normalised ("." for the root itself).
func resolveRelative(rel string) (string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return "", &ToolError{ToolValidationError, "path must be non-empty and relative"}
	}
	p := path.Clean(rel)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", &ToolError{ToolValidationError, "path escapes the workspace"}
	}
	return p, nil
}

// isDir reports whether p is the root or a directory holding a file.
func (w *workspace) isDir(p string) bool {
	if p == "." {
		return true
	}
	for f := range w.files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// read is Path.read_text: the failures are Python's OSErrors, named by the
// path relative to the workspace (the reference names its temporary
// directory, which no golden could hold).
func (w *workspace) read(p string) (string, error) {
	if c, ok := w.files[p]; ok {
		return c, nil
	}
	if w.isDir(p) {
		return "", &pyException{fmt.Sprintf("[Errno 21] Is a directory: %s", pyRepr(p))}
	}
	return "", &pyException{fmt.Sprintf("[Errno 2] No such file or directory: %s", pyRepr(p))}
}

// write is mkdir -p of the parent, then Path.write_text.
func (w *workspace) write(p, content string) error {
	if w.isDir(p) {
		return &pyException{fmt.Sprintf("[Errno 21] Is a directory: %s", pyRepr(p))}
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if _, isFile := w.files[dir]; isFile {
			return &pyException{fmt.Sprintf("[Errno 20] Not a directory: %s", pyRepr(p))}
		}
	}
	w.files[p] = content
	return nil
}

// dirty lists the paths whose working copy differs from HEAD (modified,
// deleted or untracked), sorted: git status --porcelain.
func (w *workspace) dirty(match func(string) bool) []string {
	var out []string
	for f, c := range w.files {
		if h, ok := w.head[f]; (!ok || h != c) && match(f) {
			out = append(out, f)
		}
	}
	for f := range w.head {
		if _, ok := w.files[f]; !ok && match(f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

func readFileTool(c *call) (jsonv.Value, error) {
	rel, err := stringArg(c.args, "path")
	if err != nil {
		return jsonv.Value{}, err
	}
	p, err := resolveRelative(rel)
	if err != nil {
		return jsonv.Value{}, err
	}
	content, err := c.env.ws.read(p)
	if err != nil {
		return jsonv.Value{}, err
	}
	limit := int(integer(c.opts, "max_chars", DefaultReadMaxChars))
	return jsonv.Obj(
		jsonv.M("path", jsonv.Str(rel)),
		jsonv.M("content", jsonv.Str(pyHead(content, limit))),
		jsonv.M("truncated", jsonv.BoolValue(pyLen(content) > limit)),
	), nil
}

func writeFileTool(c *call) (jsonv.Value, error) {
	rel, err := stringArg(c.args, "path")
	if err != nil {
		return jsonv.Value{}, err
	}
	content, err := stringArg(c.args, "content")
	if err != nil {
		return jsonv.Value{}, err
	}
	p, err := resolveRelative(rel)
	if err != nil {
		return jsonv.Value{}, err
	}
	if err := c.env.ws.write(p, content); err != nil {
		return jsonv.Value{}, err
	}
	return jsonv.Obj(
		jsonv.M("path", jsonv.Str(rel)),
		jsonv.M("chars_written", jsonv.Int(int64(pyLen(content)))),
	), nil
}

func replaceTextTool(c *call) (jsonv.Value, error) {
	var args [3]string
	for i, k := range []string{"path", "old", "new"} {
		s, err := stringArg(c.args, k)
		if err != nil {
			return jsonv.Value{}, err
		}
		args[i] = s
	}
	if err := c.env.ws.replaceText(args[0], args[1], args[2]); err != nil {
		return jsonv.Value{}, err
	}
	return jsonv.Obj(
		jsonv.M("path", jsonv.Str(args[0])),
		jsonv.M("replacements", jsonv.Int(1)),
	), nil
}

// replaceText is the reference's Workspace.replace_text: exactly one match
// of old (Python's str.count, so an empty old matches len+1 times) is
// replaced by new.
func (w *workspace) replaceText(rel, old, new string) error {
	p, err := resolveRelative(rel)
	if err != nil {
		return err
	}
	content, err := w.read(p)
	if err != nil {
		return err
	}
	if n := strings.Count(content, old); n != 1 {
		return &ToolError{ToolExecutionError, fmt.Sprintf("expected exactly one match, found %d", n)}
	}
	return w.write(p, strings.Replace(content, old, new, 1))
}
