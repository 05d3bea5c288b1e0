package scenarios

// Decoding of the fields for the mechanisms of the reference's later
// lessons: workspace, instructions, budget, memory, skills, approval,
// sandbox, trust, and the built-in tools' options. The schema has checked
// the shapes; here are the rules it cannot express, each reported at the
// JSON pointer of the field.

import (
	"path"
	"strconv"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// builtinNeeds names the scenario field a built-in reads ("" for none).
func builtinNeeds(builtin string) string {
	switch builtin {
	case BuiltinMemorySearch:
		return "memory"
	case BuiltinLoadSkill:
		return "skills"
	case BuiltinSandboxedFetch:
		return "sandbox"
	}
	return ""
}

func (d *decoder) mechanisms(doc jsonv.Value, s *Scenario) {
	d.workspace(doc, s)
	if v, ok := doc.Get("instructions"); ok {
		s.Instructions = &InstructionsSpec{
			Cwd:             str(v, "cwd", "."),
			Filename:        str(v, "filename", DefaultInstructionFile),
			MaxBytesPerFile: int(integer(v, "max_bytes_per_file", DefaultInstructionMaxBytes)),
		}
		if cwd, err := resolveRelative(s.Instructions.Cwd); err != nil {
			d.fail("/instructions/cwd", "cwd must be inside the workspace: %q is not", s.Instructions.Cwd)
		} else {
			s.Instructions.Cwd = cwd
			s.SystemPrompt = renderInstructions(s.Instructions.discover(s.Workspace))
		}
	}
	if v, ok := doc.Get("budget"); ok {
		s.Budget = &BudgetSpec{
			MaxInputChars:      int(integer(v, "max_input_chars", DefaultMaxInputChars)),
			MaxToolOutputChars: int(integer(v, "max_tool_output_chars", DefaultMaxToolOutputChars)),
		}
	}
	d.memory(doc, s)
	d.approval(doc, s)
	d.sandbox(doc, s)
	if v, ok := doc.Get("trust"); ok {
		s.Trust = d.trust(v)
		s.SystemPrompt = s.Trust.compile(s.Trust.decide()).systemPrompt
	}

	// One source of the system prompt.
	var sources []string
	for _, k := range []string{"system_prompt", "instructions", "trust"} {
		if doc.Has(k) {
			sources = append(sources, k)
		}
	}
	if len(sources) > 1 {
		d.fail("/"+sources[1], "%s and %s both make the system prompt: keep one", sources[0], sources[1])
	}

	for i, t := range s.Tools {
		ptr := "/tools/" + strconv.Itoa(i) + "/handler"
		if need := builtinNeeds(t.Handler.Builtin); need != "" && !doc.Has(need) {
			d.fail(ptr+"/builtin", "the built-in %s reads the scenario's %q: add it (it may be empty)", t.Handler.Builtin, need)
		}
		d.builtinOptions(t.Handler, ptr+"/options")
	}

	// reducer.History does not replay a context budget: nothing that
	// rebuilds a history from the journal may follow a context.prune.
	if s.Budget != nil {
		if len(s.Resumes) > 0 {
			d.fail("/resumes", "a scenario with a budget cannot have resumes: a resume rebuilds the history from the journal, which cannot replay context.prune")
		}
		for _, op := range s.AfterRun {
			if op.Op == OpContinue {
				d.fail(op.Pointer, "a scenario with a budget cannot continue a branch: the branch rebuilds its history from the journal, which cannot replay context.prune")
			}
		}
		if s.Expect.UnansweredCalls != nil {
			d.fail("/expect/unanswered_calls", "cannot be checked with a budget: it rebuilds the history from the journal, which cannot replay context.prune")
		}
	}
}

// workspace reads workspace.files: paths relative to the workspace root,
// written in their normal form, none of them also a directory of another.
func (d *decoder) workspace(doc jsonv.Value, s *Scenario) {
	files, ok := doc.Get("workspace")
	if !ok {
		return
	}
	files, _ = files.Get("files")
	s.Workspace = map[string]string{}
	for _, m := range files.Members() {
		ptr := "/workspace/files/" + escapePointer(m.Key)
		p, err := resolveRelative(m.Key)
		switch {
		case err != nil || p == ".":
			d.fail(ptr, "%q is not a file path inside the workspace", m.Key)
		case p != m.Key:
			d.fail(ptr, "write the path as %q", p)
		default:
			s.Workspace[p] = m.Value.Text()
		}
	}
	for p := range s.Workspace {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if _, clash := s.Workspace[dir]; clash {
				d.fail("/workspace/files/"+escapePointer(dir), "%q is a file and also the directory of %q", dir, p)
			}
		}
	}
}

func (d *decoder) memory(doc jsonv.Value, s *Scenario) {
	mem, _ := doc.Get("memory")
	ids := map[string]bool{}
	for i, r := range mem.Elems() {
		rec := MemoryRecord{ID: str(r, "id", ""), Content: str(r, "content", ""), Scope: str(r, "scope", ""), Source: str(r, "source", "")}
		if ids[rec.ID] {
			d.fail("/memory/"+strconv.Itoa(i)+"/id", "memory %q is already recorded", rec.ID)
		}
		ids[rec.ID] = true
		s.Memory = append(s.Memory, rec)
	}
	skills, _ := doc.Get("skills")
	ids = map[string]bool{}
	for i, k := range skills.Elems() {
		sk := Skill{ID: str(k, "id", ""), Description: str(k, "description", ""), Instructions: str(k, "instructions", ""), ToolNames: strs(k, "tool_names")}
		if ids[sk.ID] {
			d.fail("/skills/"+strconv.Itoa(i)+"/id", "skill %q is already in the catalog", sk.ID)
		}
		ids[sk.ID] = true
		s.Skills = append(s.Skills, sk)
	}
}

func (d *decoder) approval(doc jsonv.Value, s *Scenario) {
	v, ok := doc.Get("approval")
	if !ok {
		return
	}
	a := &ApprovalSpec{DefaultEffect: str(v, "default_effect", EffectDeny)}
	rules, _ := v.Get("rules")
	ids := map[string]bool{}
	for i, r := range rules.Elems() {
		rule := ApprovalRule{ID: str(r, "id", ""), Tools: strs(r, "tools"), Effect: str(r, "effect", ""), Reason: str(r, "reason", "")}
		if ids[rule.ID] {
			d.fail("/approval/rules/"+strconv.Itoa(i)+"/id", "rule id %q is already used: approval rule ids must be unique", rule.ID)
		}
		ids[rule.ID] = true
		a.Rules = append(a.Rules, rule)
	}
	if ap, ok := v.Get("approver"); ok {
		a.Approver = &Approver{}
		list, _ := ap.Get("approve")
		for _, r := range list.Elems() {
			req := ApprovedRequest{Tool: str(r, "tool", "")}
			req.Arguments, _ = r.Get("arguments")
			if !req.Arguments.IsValid() {
				req.Arguments = jsonv.Obj()
			}
			a.Approver.Approve = append(a.Approver.Approve, req)
		}
	}
	s.Approval = a
}

func (d *decoder) sandbox(doc jsonv.Value, s *Scenario) {
	v, ok := doc.Get("sandbox")
	if !ok {
		return
	}
	prof, _ := v.Get("profile")
	be, _ := v.Get("backend")
	attests := func(key string) bool {
		b, ok := be.Get(key)
		return !ok || b.IsTrue()
	}
	sb := &SandboxSpec{
		ProfileID:           str(prof, "id", ""),
		AllowedCommands:     strs(prof, "allowed_commands"),
		FilesystemIsolation: attests("filesystem_isolation"),
		NetworkIsolation:    attests("network_isolation"),
		ProcessIsolation:    attests("process_isolation"),
	}
	for i, e := range strs(prof, "network_allowlist") {
		ep, err := ParseEndpoint(e)
		if err != nil {
			d.fail("/sandbox/profile/network_allowlist/"+strconv.Itoa(i), "%v", err)
			continue
		}
		sb.NetworkAllowlist = append(sb.NetworkAllowlist, ep)
	}
	s.Sandbox = sb
}

func (d *decoder) trust(v jsonv.Value) *TrustSpec {
	t := &TrustSpec{Signals: DefaultInjectionSignals()}
	t.Workspace, _ = v.Get("workspace")
	if v.Has("signals") {
		t.Signals = strs(v, "signals")
	}
	grants, _ := v.Get("grants")
	for _, g := range grants.Elems() {
		grant := TrustGrant{PolicyVersion: str(g, "policy_version", ""), GrantedBy: str(g, "granted_by", "")}
		grant.Workspace, _ = g.Get("workspace")
		t.Grants = append(t.Grants, grant)
	}
	srcs, _ := v.Get("instructions")
	for _, c := range srcs.Elems() {
		src := InstructionSource{ID: str(c, "id", ""), Authority: str(c, "authority", ""), Content: str(c, "content", "")}
		src.Workspace, _ = c.Get("workspace")
		t.Instructions = append(t.Instructions, src)
	}
	return t
}

// builtinOptions checks what the schema cannot: checkpoint_edit's path is
// a file path inside the workspace; sandboxed_fetch names each payload
// member once.
func (d *decoder) builtinOptions(h Handler, ptr string) {
	switch h.Builtin {
	case BuiltinCheckpointEdit:
		p := str(h.Options, "path", "")
		if c, err := resolveRelative(p); err != nil || c == "." {
			d.fail(ptr+"/path", "%q is not a file path inside the workspace", p)
		}
	case BuiltinSandboxedFetch:
		seen := map[string]string{}
		pa, _ := h.Options.Get("payload_arguments")
		for i, k := range pa.Elems() {
			seen[k.Text()] = ptr + "/payload_arguments/" + strconv.Itoa(i)
		}
		fixed, _ := h.Options.Get("payload")
		for _, m := range fixed.Members() {
			if at, dup := seen[m.Key]; dup {
				d.fail(ptr+"/payload/"+escapePointer(m.Key), "%q is already a payload member from the arguments (%s)", m.Key, strings.TrimPrefix(at, ptr+"/"))
			}
		}
	}
}
