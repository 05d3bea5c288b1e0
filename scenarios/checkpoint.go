package scenarios

// Checkpoints of the reference's lesson s13 (its GitCheckpointManager) on
// the in-memory workspace: a checkpoint of a clean working tree, a scoped
// diff against it (git diff --numstat), and a scoped rollback that restores
// the checkpoint's content and reports whether the paths are clean again.
// The built-in checkpoint_edit is the lesson's review-then-rollback tool:
// checkpoint, one replace_text edit, file.patch with the SHA-256 of the
// file before and after, the diff, the rollback.

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strings"

	"github.com/tracecheck/tracecheck/journal"
	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// actorCheckpoint is the actor of checkpoint events.
const actorCheckpoint = "git-checkpoint"

// checkpointID is the reference's id of a checkpoint labelled label:
// "checkpoint-" and the label's words, lower-cased, joined by "-".
func checkpointID(label string) string {
	return "checkpoint-" + strings.Join(pyFields(strings.ToLower(label)), "-")
}

// createCheckpoint is GitCheckpointManager.create with require_clean: the
// working tree must equal HEAD.
func (w *workspace) createCheckpoint() error {
	if len(w.dirty(func(string) bool { return true })) > 0 {
		return &pyException{"refusing to checkpoint a dirty working tree"}
	}
	return nil
}

// scopedPaths is _validate_paths: each path resolved inside the
// repository, not the root itself, duplicates dropped.
func scopedPaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, &pyException{"rollback and diff require at least one explicit path"}
	}
	var out []string
	for _, p := range paths {
		c := path.Clean(p)
		if strings.HasPrefix(p, "/") || c == ".." || strings.HasPrefix(c, "../") {
			return nil, &pyException{"checkpoint path escapes the repository"}
		}
		if c == "." {
			return nil, &pyException{"repository root is too broad for scoped rollback"}
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// under returns the pathspec matcher of paths: a file is matched by its
// own path or a directory above it.
func under(paths []string) func(string) bool {
	return func(f string) bool {
		for _, p := range paths {
			if f == p || strings.HasPrefix(f, p+"/") {
				return true
			}
		}
		return false
	}
}

// diffStat is git diff --numstat HEAD -- paths summed: lines added and
// removed in the tracked files under paths (untracked files are not in a
// diff against a commit). Lines are counted by a shortest edit script, as
// git's default diff counts them.
func (w *workspace) diffStat(paths []string) (additions, deletions int) {
	match := under(paths)
	for f, before := range w.head {
		if !match(f) {
			continue
		}
		after, ok := w.files[f]
		if !ok {
			after = ""
		}
		if after == before {
			continue
		}
		a, b := splitLines(before), splitLines(after)
		d := editDistance(a, b)
		common := (len(a) + len(b) - d) / 2
		additions += len(b) - common
		deletions += len(a) - common
	}
	return additions, deletions
}

// rollback is git restore --source HEAD --worktree --staged -- paths, then
// git status -- paths: whether the paths are clean again. A path that
// matches no tracked file fails as git does.
func (w *workspace) rollback(paths []string) (bool, error) {
	for _, p := range paths {
		if !w.tracked(p) {
			return false, &pyException{"error: pathspec " + pyRepr(p) + " did not match any file(s) known to git"}
		}
	}
	match := under(paths)
	for f, c := range w.head {
		if match(f) {
			w.files[f] = c
		}
	}
	return len(w.dirty(match)) == 0, nil
}

func (w *workspace) tracked(p string) bool {
	match := under([]string{p})
	for f := range w.head {
		if match(f) {
			return true
		}
	}
	return false
}

// splitLines splits text into lines, each with its line end; a last line
// without one is a line of its own (as git counts it).
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editDistance is the length of a shortest edit script (insertions and
// deletions) turning a into b: Myers' greedy algorithm.
func editDistance(a, b []string) int {
	n, m := len(a), len(b)
	offset := n + m
	v := make([]int, 2*offset+2)
	for d := 0; d <= n+m; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1]
			} else {
				x = v[offset+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				return d
			}
		}
	}
	return n + m
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// checkpointEditTool is the reference's s13 review_then_rollback handler,
// generalised by its options (label, path, old, replacement_argument):
// checkpoint the clean workspace (checkpoint.create), replace options.old
// by args[replacement_argument] in options.path (file.patch with the
// SHA-256 of the file before and after), diff the path against the
// checkpoint (checkpoint.diff) and roll it back (checkpoint.rollback); the
// result is {reviewed_diff: {paths, additions, deletions}, rolled_back,
// final_content}.
func checkpointEditTool(c *call) (jsonv.Value, error) {
	ws := c.env.ws
	label := str(c.opts, "label", "")
	target := str(c.opts, "path", "")
	if err := ws.createCheckpoint(); err != nil {
		return jsonv.Value{}, err
	}
	id := checkpointID(label)
	harness := journal.Actor{Kind: "harness", ID: actorCheckpoint}
	if err := c.env.emit("checkpoint.create", harness, jsonv.Obj(
		jsonv.M("checkpoint_id", jsonv.Str(id)),
		jsonv.M("label", jsonv.Str(label)),
		jsonv.M("clean_baseline", jsonv.BoolValue(true)),
	)); err != nil {
		return jsonv.Value{}, err
	}
	before, err := ws.read(path.Clean(target))
	if err != nil {
		return jsonv.Value{}, err
	}
	replacement, err := stringArg(c.args, str(c.opts, "replacement_argument", "replacement"))
	if err != nil {
		return jsonv.Value{}, err
	}
	if err := ws.replaceText(target, str(c.opts, "old", ""), replacement); err != nil {
		return jsonv.Value{}, err
	}
	after, err := ws.read(path.Clean(target))
	if err != nil {
		return jsonv.Value{}, err
	}
	if err := c.env.emit("file.patch", journal.Actor{Kind: "tool", ID: c.name}, jsonv.Obj(
		jsonv.M("path", jsonv.Str(target)),
		jsonv.M("before_sha256", jsonv.Str(sha256Hex(before))),
		jsonv.M("after_sha256", jsonv.Str(sha256Hex(after))),
	)); err != nil {
		return jsonv.Value{}, err
	}
	paths, err := scopedPaths([]string{target})
	if err != nil {
		return jsonv.Value{}, err
	}
	adds, dels := ws.diffStat(paths)
	stat := jsonv.Obj(
		jsonv.M("paths", jsonv.StrArr(paths)),
		jsonv.M("additions", jsonv.Int(int64(adds))),
		jsonv.M("deletions", jsonv.Int(int64(dels))),
	)
	if err := c.env.emit("checkpoint.diff", harness, jsonv.Obj(append([]jsonv.Member{jsonv.M("checkpoint_id", jsonv.Str(id))}, stat.Members()...)...)); err != nil {
		return jsonv.Value{}, err
	}
	clean, err := ws.rollback(paths)
	if err != nil {
		return jsonv.Value{}, err
	}
	if err := c.env.emit("checkpoint.rollback", harness, jsonv.Obj(
		jsonv.M("checkpoint_id", jsonv.Str(id)),
		jsonv.M("restored_paths", jsonv.StrArr(paths)),
		jsonv.M("clean", jsonv.BoolValue(clean)),
	)); err != nil {
		return jsonv.Value{}, err
	}
	final, err := ws.read(path.Clean(target))
	if err != nil {
		return jsonv.Value{}, err
	}
	return jsonv.Obj(
		jsonv.M("reviewed_diff", stat),
		jsonv.M("rolled_back", jsonv.BoolValue(clean)),
		jsonv.M("final_content", jsonv.Str(final)),
	), nil
}
