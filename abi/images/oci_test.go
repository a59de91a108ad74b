package images

import (
	"strings"
	"testing"
)

// An OCI reference names a registry, a repository and a tag (latest when
// left out) or a digest; wasm:// references and bare names are not OCI
// references, so a board's reference never reaches a registry.
func TestParseOCIAcceptsRegistryReferencesOnly(t *testing.T) {
	valid := map[string][3]string{
		"127.0.0.1:5000/app/echo:v1":                          {"127.0.0.1:5000", "app/echo", "v1"},
		"localhost:5000/echo":                                 {"localhost:5000", "echo", "latest"},
		"ghcr.io/acme/echo@sha256:" + strings.Repeat("a", 64): {"ghcr.io", "acme/echo", "sha256:" + strings.Repeat("a", 64)},
	}
	for ref, want := range valid {
		r, err := ParseOCI(ref)
		if err != nil || r.Registry != want[0] || r.Repository != want[1] || r.Reference != want[2] {
			t.Errorf("ParseOCI(%q) = %+v, %v; want %v", ref, r, err, want)
		}
		if IsWasmRef(ref) {
			t.Errorf("IsWasmRef(%q) = true", ref)
		}
	}
	for _, ref := range []string{"echo", "nginx:latest", "wasm://embedded/echo", "http://127.0.0.1:5000/echo:v1", "127.0.0.1:5000/Echo:v1", ""} {
		if _, err := ParseOCI(ref); err == nil || !strings.Contains(err.Error(), ref) {
			t.Errorf("ParseOCI(%q) = %v, want an error naming it", ref, err)
		}
	}
}
