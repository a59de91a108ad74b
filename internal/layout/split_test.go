package layout

import (
	"strings"
	"testing"
)

// testHelpers is the one folder of what tests share (docs/design.md, "The
// parts").
const testHelpers = "internal/testkit/"

// internal/ is split by purpose (docs/design.md): the tests' helpers under
// internal/testkit, which no package of the product imports, and the
// product's shared packages, which import nothing above them: not the CLI,
// not the facades, not the runtime.
func TestInternalIsSplitByPurpose(t *testing.T) {
	for _, p := range packages(t) {
		if strings.HasPrefix(p.ImportPath, "internal/test") && !strings.HasPrefix(p.ImportPath, testHelpers) {
			t.Errorf("%s is a test helper outside %s", p.ImportPath, testHelpers)
		}
		if !isProduct(p) {
			continue
		}
		for _, imp := range p.Imports {
			rel, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if strings.HasPrefix(rel, testHelpers) {
				t.Errorf("%s, part of the product, imports the test helper %s", p.ImportPath, rel)
			}
			if strings.HasPrefix(p.ImportPath, "internal/") && (rel == "cli" || rel == "host" || rel == "bundler" ||
				strings.HasPrefix(rel, "cli/") || strings.HasPrefix(rel, "host/") || strings.HasPrefix(rel, "bundler/")) {
				t.Errorf("%s imports %s: nothing under internal/ imports what stands above it", p.ImportPath, rel)
			}
		}
	}
}
