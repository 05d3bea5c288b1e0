package exercise

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
	"github.com/tracecheck/tracecheck/internal/testenv"
)

// TestMain lets the test binary be a subject: tracecheck's own
// implementation served through the protocol, as a separate process.
func TestMain(m *testing.M) {
	if os.Getenv("TRACECHECK_EXERCISE_TEST_SUBJECT") == "reference" {
		if err := reference.Serve(os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// conformProcess starts argv, checks every exercise with seed and returns
// the results; a protocol error fails the test.
func conformProcess(tb testing.TB, fx *Fixtures, seed int64, env []string, argv ...string) []ExerciseResult {
	tb.Helper()
	s, err := subject.Start(argv, subject.Options{Env: env})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	hello, err := s.Hello()
	if err != nil {
		tb.Fatalf("%v (stderr: %q)", err, s.StderrTail(20))
	}
	res, err := Conform(s, hello, Options{Seed: seed, Fixtures: fx})
	if err != nil {
		tb.Fatalf("%v (stderr: %q)", err, s.StderrTail(20))
	}
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	return res
}

func requirePass(tb testing.TB, res []ExerciseResult) {
	tb.Helper()
	if len(res) != len(Catalog()) {
		tb.Fatalf("%d results for %d exercises", len(res), len(Catalog()))
	}
	for _, ex := range res {
		if ex.Status != Pass {
			tb.Errorf("%s: %s (missing ops %v)", ex.ID, ex.Status, ex.Missing)
		}
		for _, c := range ex.Criteria {
			if c.Status != Pass {
				tb.Errorf("%s %s: %s: %+v", c.ID, c.Name, c.Status, c.Failure)
			}
		}
	}
}

func TestReferenceSubjectPassesEverything(t *testing.T) {
	env := append(os.Environ(), "TRACECHECK_EXERCISE_TEST_SUBJECT=reference")
	requirePass(t, conformProcess(t, loadFixtures(t), 3, env, os.Args[0]))
}

// python returns python3, or skips: the Python kits are not checked.
func python(tb testing.TB) string {
	tb.Helper()
	return testenv.Python(tb, "the Python kits are not checked")
}

func TestPythonSolutionPassesEverything(t *testing.T) {
	py := python(t)
	fx := loadFixtures(t)
	for _, seed := range []int64{1, 99} {
		requirePass(t, conformProcess(t, fx, seed, nil, py, filepath.Join("..", "exercises", "python", "solution", "subject.py")))
	}
}

// requireStarterFails checks that every exercise fails on a starter kit,
// at its first criterion, with the starter's own "not implemented" answer:
// the criterion is named and nothing passes by accident.
func requireStarterFails(tb testing.TB, res []ExerciseResult) {
	tb.Helper()
	if len(res) != len(Catalog()) {
		tb.Fatalf("%d results for %d exercises", len(res), len(Catalog()))
	}
	for _, ex := range res {
		f := ex.FirstFailure()
		if ex.Status != Fail || f == nil {
			tb.Errorf("%s: %s on the starter, want fail", ex.ID, ex.Status)
			continue
		}
		if f.Index != 0 || f.ID != ex.ID+"1" || f.Name == "" {
			tb.Errorf("%s: first failure %s %s, want the first criterion", ex.ID, f.ID, f.Name)
		}
		if !strings.Contains(f.Failure.Message, "not implemented yet") {
			tb.Errorf("%s: %s failed with %q, want the starter's TODO answer", ex.ID, f.ID, f.Failure.Message)
		}
		// Resume not written yet scores nothing, refusals included: R's
		// refusals pass only with their code.
		if ex.ID == "R" && ex.Passed() != 0 {
			tb.Errorf("R: %d criteria pass on the starter, want 0", ex.Passed())
		}
	}
}

func TestPythonStarterFailsEveryExercise(t *testing.T) {
	py := python(t)
	requireStarterFails(t, conformProcess(t, loadFixtures(t), 1, nil, py, filepath.Join("..", "exercises", "python", "starter", "subject.py")))
}

// goBuild builds a kit's main package into a temporary directory.
func goBuild(tb testing.TB, pkg string) string {
	tb.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("SKIPPED: the go command is not on PATH; the Go kits are not checked")
	}
	out := filepath.Join(tb.TempDir(), filepath.Base(pkg))
	cmd := exec.Command(gobin, "build", "-o", out, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

func TestGoSolutionPassesEverything(t *testing.T) {
	bin := goBuild(t, "../exercises/go/solution")
	fx := loadFixtures(t)
	for _, seed := range []int64{1, 99} {
		requirePass(t, conformProcess(t, fx, seed, nil, bin))
	}
}

func TestGoStarterFailsEveryExercise(t *testing.T) {
	bin := goBuild(t, "../exercises/go/starter")
	requireStarterFails(t, conformProcess(t, loadFixtures(t), 1, nil, bin))
}
