package scenarios

// Instruction discovery of the reference's lesson s05
// (discover_instructions and render_instructions): the instruction files
// found from the workspace root down to the working directory, rendered
// root first into the system prompt. The journal never records the system
// prompt; model.request shows it as the "system" role.

import (
	"fmt"
	"path"
	"strings"
)

// The reference's defaults.
const (
	DefaultInstructionFile     = "AGENTS.md"
	DefaultInstructionMaxBytes = 32000
)

// InstructionsSpec is where a scenario's instructions are discovered.
type InstructionsSpec struct {
	Cwd             string // relative to the workspace root; "." for the root
	Filename        string
	MaxBytesPerFile int
}

// instructionDoc is one discovered file: its path from the root and its
// (possibly cut) content.
type instructionDoc struct {
	path    string
	content string
}

// discover walks from the root to Cwd and loads Filename from each
// directory that has it, each cut to MaxBytesPerFile bytes (a character
// cut in two becomes U+FFFD, as Python's errors="replace" decodes it).
func (in *InstructionsSpec) discover(files map[string]string) []instructionDoc {
	dirs := []string{"."}
	if in.Cwd != "." {
		parts := strings.Split(in.Cwd, "/")
		for i := range parts {
			dirs = append(dirs, strings.Join(parts[:i+1], "/"))
		}
	}
	var out []instructionDoc
	for _, d := range dirs {
		p := path.Join(d, in.Filename)
		content, ok := files[p]
		if !ok {
			continue
		}
		if len(content) > in.MaxBytesPerFile {
			content = strings.ToValidUTF8(content[:in.MaxBytesPerFile], "\uFFFD")
		}
		out = append(out, instructionDoc{p, content})
	}
	return out
}

// renderInstructions is render_instructions: "# Instructions from <path>"
// and the stripped content of each file, joined by blank lines.
func renderInstructions(docs []instructionDoc) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = fmt.Sprintf("# Instructions from %s\n%s", d.path, pyStrip(d.content))
	}
	return strings.Join(parts, "\n\n")
}
