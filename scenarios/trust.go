package scenarios

// Project trust of the reference's lesson s12 (ProjectTrustStore and
// InstructionCompiler): the workspace is identified by the fingerprint of
// its manifest, trusted only by an explicit grant for that exact
// fingerprint, and instruction sources are accepted or quarantined by
// their authority; phrases that look like injection are reported, never
// used to decide. Before session.start the run records trust.decision,
// instruction.accept and instruction.quarantine; the accepted sources
// become the system prompt.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Instruction authorities.
const (
	AuthorityPlatform     = "platform"
	AuthorityProject      = "project"
	AuthorityExternalData = "external-data"
	AuthorityToolOutput   = "tool-output"
)

// The actors of the trust preflight's events.
const (
	actorTrust    = "project-trust"
	actorCompiler = "instruction-compiler"
)

// DefaultInjectionSignals returns the reference compiler's signals, in its
// order.
func DefaultInjectionSignals() []string {
	return []string{"ignore previous", "override system", "upload secrets", "disable sandbox"}
}

const reasonNoGrant = "No trust grant matches this exact workspace identity."

// TrustSpec is a scenario's project trust.
type TrustSpec struct {
	Workspace    jsonv.Value // the workspace manifest
	Grants       []TrustGrant
	Instructions []InstructionSource
	Signals      []string // phrases reported as injection signals
}

// TrustGrant trusts the workspace whose manifest is Workspace.
type TrustGrant struct {
	Workspace     jsonv.Value
	PolicyVersion string
	GrantedBy     string
}

// InstructionSource is a candidate instruction. A project source is
// accepted only when the workspace is trusted and the source is bound to
// it (Workspace is the trusted workspace's manifest).
type InstructionSource struct {
	ID        string
	Authority string
	Content   string
	Workspace jsonv.Value // may be absent: bound to no workspace
}

// manifestFingerprint is WorkspaceIdentity.from_manifest: the SHA-256 of
// the manifest as canonical JSON.
func manifestFingerprint(manifest jsonv.Value) string {
	sum := sha256.Sum256(manifest.AppendCanonical(nil))
	return hex.EncodeToString(sum[:])
}

// trustDecision is ProjectTrustStore.evaluate of the workspace.
type trustDecision struct {
	fingerprint   string
	trusted       bool
	policyVersion string // "" when untrusted (null in the payload)
	reason        string
}

func (t *TrustSpec) decide() trustDecision {
	d := trustDecision{fingerprint: manifestFingerprint(t.Workspace), reason: reasonNoGrant}
	// A later grant for the same workspace replaces an earlier one.
	for _, g := range t.Grants {
		if manifestFingerprint(g.Workspace) == d.fingerprint {
			d.trusted, d.policyVersion = true, g.PolicyVersion
			d.reason = fmt.Sprintf("Explicit grant from %s matches this workspace.", g.GrantedBy)
		}
	}
	return d
}

func (d trustDecision) payload() jsonv.Value {
	pv := jsonv.NullValue()
	if d.trusted {
		pv = jsonv.Str(d.policyVersion)
	}
	return jsonv.Obj(
		jsonv.M("workspace_fingerprint", jsonv.Str(d.fingerprint)),
		jsonv.M("trusted", jsonv.BoolValue(d.trusted)),
		jsonv.M("policy_version", pv),
		jsonv.M("reason", jsonv.Str(d.reason)),
	)
}

// compiledInstructions is InstructionCompiler.compile.
type compiledInstructions struct {
	systemPrompt string
	accepted     []string
	quarantined  []string
	signals      []string
}

func (t *TrustSpec) compile(d trustDecision) compiledInstructions {
	var c compiledInstructions
	var prompt []string
	for _, src := range t.Instructions {
		lowered := strings.ToLower(src.Content)
		for _, s := range t.Signals {
			if strings.Contains(lowered, s) {
				c.signals = append(c.signals, src.ID+":"+s)
			}
		}
		bound := src.Workspace.IsValid() && manifestFingerprint(src.Workspace) == d.fingerprint
		if src.Authority == AuthorityPlatform || (src.Authority == AuthorityProject && d.trusted && bound) {
			c.accepted = append(c.accepted, src.ID)
			if body := pyStrip(src.Content); body != "" {
				prompt = append(prompt, fmt.Sprintf("[instruction-source:%s]\n%s", src.ID, body))
			}
		} else {
			c.quarantined = append(c.quarantined, src.ID)
		}
	}
	c.systemPrompt = strings.Join(prompt, "\n\n")
	return c
}

// preflight records the trust decision and the compiled instruction
// sources, before session.start.
func (a *agent) preflight(t *TrustSpec) error {
	d := t.decide()
	c := t.compile(d)
	if err := a.rec.emit("trust.decision", harnessActor(actorTrust), d.payload()); err != nil {
		return err
	}
	if err := a.rec.emit("instruction.accept", harnessActor(actorCompiler), jsonv.Obj(
		jsonv.M("sources", jsonv.StrArr(c.accepted)),
	)); err != nil {
		return err
	}
	return a.rec.emit("instruction.quarantine", harnessActor(actorCompiler), jsonv.Obj(
		jsonv.M("sources", jsonv.StrArr(c.quarantined)),
		jsonv.M("signals", jsonv.StrArr(c.signals)),
		jsonv.M("heuristics_are_authority", jsonv.BoolValue(false)),
	))
}
