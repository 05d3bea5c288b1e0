package scenarios

// The approval gate of the reference's lesson s10 (its ApprovalPolicy and
// ApprovalGate): every tool call is matched against ordered rules; allow
// and deny are decided by the policy, ask by an approver that sees the
// exact request, and without one the gate fails closed.

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/tracecheck/tracecheck/journal/jsonv"
)

// Policy effects and decision sources, as the reference names them.
const (
	EffectAllow = "allow"
	EffectAsk   = "ask"
	EffectDeny  = "deny"

	sourcePolicy     = "policy"
	sourceApprover   = "approver"
	sourceFailClosed = "fail-closed"
)

// The reasons the gate gives when no rule supplies one.
const (
	reasonNoRule     = "No explicit approval rule matched the requested tool."
	reasonNoApprover = "Approval was required, but no approver was available."
	reasonRejected   = "The approver rejected this exact request."
)

// ApprovalSpec is a scenario's approval gate. With it, every tool call is
// preceded by approval.request and approval.decision; a call that is not
// allowed gets a tool.result with error_type ApprovalDenied and its tool
// never runs.
type ApprovalSpec struct {
	Rules         []ApprovalRule
	DefaultEffect string // the effect when no rule matches; default deny
	// Approver decides ask rules; nil means there is none and ask fails
	// closed.
	Approver *Approver
}

// ApprovalRule applies to calls of the tools it names; the first matching
// rule decides.
type ApprovalRule struct {
	ID     string
	Tools  []string
	Effect string
	Reason string
}

// Approver approves exactly the requests it lists (tool and arguments,
// compared as JSON values) and rejects every other.
type Approver struct {
	Approve []ApprovedRequest
}

// ApprovedRequest is one request an approver approves.
type ApprovedRequest struct {
	Tool      string
	Arguments jsonv.Value
}

// approvalDecision is the gate's answer for one call.
type approvalDecision struct {
	rule       ApprovalRule
	allowed    bool
	reason     string
	source     string
	grantScope string
}

// requestFingerprint is the reference's ActionRequest.fingerprint: the
// SHA-256 of {"tool", "arguments"} as canonical JSON (sorted keys, compact,
// UTF-8).
func requestFingerprint(tool string, args jsonv.Value) string {
	sum := sha256.Sum256(jsonv.Obj(jsonv.M("tool", jsonv.Str(tool)), jsonv.M("arguments", args)).AppendCanonical(nil))
	return hex.EncodeToString(sum[:])
}

// match is ApprovalPolicy.evaluate: the first rule naming the tool, else
// the default rule "default-<effect>".
func (a *ApprovalSpec) match(tool string) ApprovalRule {
	for _, r := range a.Rules {
		if slices.Contains(r.Tools, tool) {
			return r
		}
	}
	return ApprovalRule{ID: "default-" + a.DefaultEffect, Effect: a.DefaultEffect, Reason: reasonNoRule}
}

// resolve is ApprovalGate.resolve for a call matched by rule.
func (a *ApprovalSpec) resolve(rule ApprovalRule, tool string, args jsonv.Value) approvalDecision {
	d := approvalDecision{rule: rule, reason: rule.Reason, source: sourcePolicy, grantScope: "none"}
	switch {
	case rule.Effect == EffectAllow:
		d.allowed = true
	case rule.Effect == EffectDeny:
	case a.Approver == nil:
		d.reason, d.source = reasonNoApprover, sourceFailClosed
	default:
		d.source = sourceApprover
		if a.Approver.approves(tool, args) {
			d.allowed, d.grantScope = true, "once"
		} else {
			d.reason = reasonRejected
		}
	}
	return d
}

func (ap *Approver) approves(tool string, args jsonv.Value) bool {
	want := string(args.AppendCanonical(nil))
	for _, r := range ap.Approve {
		if r.Tool == tool && string(r.Arguments.AppendCanonical(nil)) == want {
			return true
		}
	}
	return false
}

// requestPayload is the approval.request payload.
func (d approvalDecision) requestPayload(callID, tool, fingerprint string) jsonv.Value {
	return jsonv.Obj(
		jsonv.M("tool_call_id", jsonv.Str(callID)),
		jsonv.M("tool", jsonv.Str(tool)),
		jsonv.M("request_fingerprint", jsonv.Str(fingerprint)),
		jsonv.M("policy_effect", jsonv.Str(d.rule.Effect)),
		jsonv.M("rule_id", jsonv.Str(d.rule.ID)),
	)
}

// decisionPayload is the approval.decision payload.
func (d approvalDecision) decisionPayload(callID, tool, fingerprint string) jsonv.Value {
	outcome := EffectDeny
	if d.allowed {
		outcome = EffectAllow
	}
	return jsonv.Obj(
		jsonv.M("tool_call_id", jsonv.Str(callID)),
		jsonv.M("tool", jsonv.Str(tool)),
		jsonv.M("request_fingerprint", jsonv.Str(fingerprint)),
		jsonv.M("outcome", jsonv.Str(outcome)),
		jsonv.M("policy_effect", jsonv.Str(d.rule.Effect)),
		jsonv.M("rule_id", jsonv.Str(d.rule.ID)),
		jsonv.M("reason", jsonv.Str(d.reason)),
		jsonv.M("source", jsonv.Str(d.source)),
		jsonv.M("grant_scope", jsonv.Str(d.grantScope)),
	)
}
