package testregistry

import (
	"encoding/json"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Manifest reads the manifest of ref from a registry on loopback, as
// pushed, and returns it raw (for its digest) and decoded.
func Manifest(t testing.TB, ref string) ([]byte, ocispec.Manifest) {
	t.Helper()
	raw, err := crane.Manifest(ref, crane.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("the manifest of %s: %v\n%s", ref, err, raw)
	}
	return raw, m
}
