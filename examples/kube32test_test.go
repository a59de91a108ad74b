package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// withTests are the examples that ship tests/*.hurl, with the compilers
// their pods need and the flags their tests say to run with.
var withTests = map[string]struct{ tools, flags []string }{
	"echo":   {tools: []string{"clang"}},
	"egress": {tools: []string{"clang"}},
	"spa":    {tools: []string{"go"}},
	"rust":   {tools: []string{"clang", "rustc"}, flags: []string{"--nodes", "2"}},
}

// Each example's own tests pass under `kube32 test`, the command its users
// run (docs/testing.md): CI runs them here.
func TestExamplesPassTheirKube32Tests(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("*", "tests", "*.hurl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range dirs {
		if name := strings.Split(filepath.ToSlash(p), "/")[0]; withTests[name].tools == nil {
			t.Errorf("%s: example %s has tests but no entry in withTests", p, name)
		}
	}
	for name, ex := range withTests {
		t.Run(name, func(t *testing.T) {
			testenv.Tools(t, ex.tools...)
			dir := copyExamples(t, name)
			if _, err := os.Stat(filepath.Join(dir, "tests")); err != nil {
				t.Fatalf("example %s has no tests/: %v", name, err)
			}
			junit := filepath.Join(t.TempDir(), "junit.xml")
			code, out := testserve.Run(t, append([]string{"test", dir, "--junit", junit}, ex.flags...)...)
			if code != 0 || strings.Contains(out, "FAIL ") || !strings.Contains(out, "PASS tests/") {
				t.Fatalf("kube32 test %s: exit %d, want 0 and PASS lines only:\n%s", name, code, out)
			}
			if _, err := os.Stat(junit); err != nil {
				t.Errorf("--junit: %v", err)
			}
		})
	}
}
