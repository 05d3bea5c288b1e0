package exercise

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tracecheck/tracecheck/exercise/reference"
	"github.com/tracecheck/tracecheck/exercise/subject"
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

func python(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		tb.Skip("SKIPPED: python3 is not installed; the Python kits are not checked")
	}
	return p
}

func TestPythonSolutionPassesEverything(t *testing.T) {
	py := python(t)
	fx := loadFixtures(t)
	for _, seed := range []int64{1, 99} {
		requirePass(t, conformProcess(t, fx, seed, nil, py, filepath.Join("..", "exercises", "python", "solution", "subject.py")))
	}
}
