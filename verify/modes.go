package verify

import (
	"fmt"
	"strings"
)

// UpdateMode is what verify writes when a render differs from its golden
// or has none (insta's INSTA_UPDATE).
type UpdateMode string

// Update modes.
const (
	// UpdateAuto writes pending goldens (<id>.trace.jsonl.new) on a
	// developer's machine and nothing in CI. The default.
	UpdateAuto UpdateMode = "auto"
	// UpdateNew always writes pending goldens, in CI too.
	UpdateNew UpdateMode = "new"
	// UpdateAlways writes the goldens themselves (-update, --update).
	UpdateAlways UpdateMode = "always"
	// UpdateNo writes nothing.
	UpdateNo UpdateMode = "no"
)

// UpdateModes lists the modes in the order --help gives them.
func UpdateModes() []UpdateMode {
	return []UpdateMode{UpdateAuto, UpdateNew, UpdateAlways, UpdateNo}
}

// ParseUpdateMode reads an --update value.
func ParseUpdateMode(s string) (UpdateMode, error) {
	for _, m := range UpdateModes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("--update must be one of %s, not %q", joinModes(UpdateModes()), s)
}

// Writes is what an update mode comes to on one machine.
type Writes string

// What a run writes.
const (
	WritesNone    Writes = "none"
	WritesPending Writes = "pending"
	WritesGolden  Writes = "golden"
)

// Writes resolves the mode: auto writes pending goldens outside CI and
// nothing in CI.
func (m UpdateMode) Writes(ci bool) Writes {
	switch m {
	case UpdateAlways:
		return WritesGolden
	case UpdateNew:
		return WritesPending
	case UpdateAuto:
		if ci {
			return WritesNone
		}
		return WritesPending
	}
	return WritesNone
}

// UnreferencedMode is what verify does with a golden that no subject of a
// full run renders (cargo insta test --unreferenced).
type UnreferencedMode string

// Unreferenced modes.
const (
	// UnreferencedWarn lists them; the run does not fail for them. The
	// default outside CI.
	UnreferencedWarn UnreferencedMode = "warn"
	// UnreferencedReject lists them and fails the run. The default in CI.
	UnreferencedReject UnreferencedMode = "reject"
	// UnreferencedDelete says which it will delete, then deletes them.
	UnreferencedDelete UnreferencedMode = "delete"
)

// UnreferencedModes lists the modes in the order --help gives them.
func UnreferencedModes() []UnreferencedMode {
	return []UnreferencedMode{UnreferencedWarn, UnreferencedReject, UnreferencedDelete}
}

// ParseUnreferencedMode reads an --unreferenced value; "" is the default
// for the machine: reject in CI, warn elsewhere.
func ParseUnreferencedMode(s string, ci bool) (UnreferencedMode, error) {
	if s == "" {
		if ci {
			return UnreferencedReject, nil
		}
		return UnreferencedWarn, nil
	}
	for _, m := range UnreferencedModes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("--unreferenced must be one of %s, not %q", joinModes(UnreferencedModes()), s)
}

func joinModes[M ~string](ms []M) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// CIVariables are the environment variables that mark a CI run when CI
// itself is not set, in the order DetectCI looks at them: GitHub Actions,
// GitLab CI, Azure Pipelines, Buildkite, Jenkins, TeamCity, CircleCI,
// Travis CI, AppVeyor, Bitbucket Pipelines, AWS CodeBuild, Drone.
func CIVariables() []string {
	return []string{
		"GITHUB_ACTIONS", "GITLAB_CI", "TF_BUILD", "BUILDKITE", "JENKINS_URL", "TEAMCITY_VERSION",
		"CIRCLECI", "TRAVIS", "APPVEYOR", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID", "DRONE",
	}
}

// DetectCI reports whether the environment (read through lookup, e.g.
// os.LookupEnv) is a CI run, and the variable that decided, as insta
// decides: CI set to anything but "", "0" or "false" means CI, and CI set
// to one of those means not CI whatever else is set (so CI=false runs a
// CI job as a developer's machine); with CI unset, any of CIVariables set
// to a non-empty value means CI.
func DetectCI(lookup func(string) (string, bool)) (bool, string) {
	if v, ok := lookup("CI"); ok {
		switch strings.ToLower(v) {
		case "", "0", "false":
			return false, "CI=" + v
		}
		return true, "CI"
	}
	for _, name := range CIVariables() {
		if v, ok := lookup(name); ok && v != "" {
			return true, name
		}
	}
	return false, ""
}
