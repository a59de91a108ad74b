package compile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Issue 30, item 9: a plain build keeps the name section of Go, C and Rust
// modules, so that a trap's stack trace names the functions rather than
// ".$5()"; a release build drops it (and --keep-names keeps it,
// TestReleaseKeepNames). CustomSectionBytes counts what release drops.
func TestPlainBuildsKeepTheNameSection(t *testing.T) {
	testenv.Tools(t, "go", "clang", "wasm-ld")
	requireDebianRustc(t)
	for _, c := range []struct{ name, lang, src string }{
		{"gopod", langGo.Name, "gopod"},
		{"cpod", langC.Name, "cpod"},
		{"rustpod", langRust.Name, "rustpod"},
		{"rustpod-std", langRust.Name, "rustpod-std"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Compile(context.Background(), job(t, c.name, c.lang, c.src, 0))
			if err != nil {
				t.Fatal(err)
			}
			names, err := customSections(m.Wasm)
			if err != nil || !slices.Contains(names, nameSection) {
				t.Errorf("plain build: custom sections %q (%v), want a name section", names, err)
			}
			custom, err := CustomSectionBytes(m.Wasm)
			if stripped, _ := stripCustomSections(m.Wasm, false); err != nil || custom != int64(len(m.Wasm)-len(stripped)) || custom == 0 {
				t.Errorf("CustomSectionBytes = %d, %v; stripping them takes %d bytes off", custom, err, len(m.Wasm)-len(stripped))
			}
			if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, ".debug_") }) {
				t.Errorf("plain build keeps debug information: %q", names)
			}

			_, released := compileRelease(t, releaseJob(t, c.name, c.lang, c.src, false))
			if names, _ := customSections(released); slices.Contains(names, nameSection) {
				t.Errorf("release build: custom sections %q, want no name section", names)
			}
		})
	}
}
