package oci_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/opencontainers/go-digest"

	"github.com/kube32/kube32/internal/oci"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// A pulled module is the pushed one, verified against its digest, and the
// disk cache gives it back by reference to another Puller (a node that
// restarted) while the registry is gone.
func TestPullVerifiesAndCachesByDigest(t *testing.T) {
	ctx := context.Background()
	module := testpods.Fixture(t, "good", 65536)
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/app/good:v1"
	pushed, err := oci.Push(ctx, module, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	img, err := (&oci.Puller{Dir: dir}).Pull(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if string(img.Module) != string(module) || img.Manifest.String() != pushed || img.Layer != digest.FromBytes(module) {
		t.Fatalf("pulled %d bytes, manifest %s layer %s; pushed %d bytes, manifest %s", len(img.Module), img.Manifest, img.Layer, len(module), pushed)
	}
	again, ok := (&oci.Puller{Dir: dir}).Cached(ref)
	if !ok || string(again.Module) != string(module) || again.Manifest != img.Manifest {
		t.Errorf("a new Puller over the same folder: cached %v, manifest %s", ok, again.Manifest)
	}
	if _, ok := (&oci.Puller{Dir: dir}).Cached(reg.Host + "/app/other:v1"); ok {
		t.Error("a reference never pulled is cached")
	}
}

// A blob whose bytes do not match its digest is refused, and nothing is
// cached.
func TestPullRefusesATamperedLayer(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/app/good:v1"
	if _, err := oci.Push(ctx, testpods.Fixture(t, "good", 65536), ref, false); err != nil {
		t.Fatal(err)
	}
	reg.Tamper()
	p := &oci.Puller{Dir: t.TempDir()}
	_, err := p.Pull(ctx, ref)
	if err == nil || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("pull of a tampered layer: %v, want a digest mismatch naming %s", err, ref)
	}
	if _, ok := p.Cached(ref); ok {
		t.Error("the tampered layer was cached")
	}
}

// A manifest that is not a wasm artifact (a container image pushed with
// crane) is refused with the media type named; a registry that is down
// gives an error naming the reference.
func TestPullRefusesWhatIsNotAWasmImage(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/library/container:v1"
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := crane.Push(img, ref, crane.Insecure); err != nil {
		t.Fatal(err)
	}
	_, err = (&oci.Puller{}).Pull(context.Background(), ref)
	if err == nil || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), "not a wasm image") {
		t.Errorf("pull of a container image: %v, want it refused as not a wasm image", err)
	}
	down := testregistry.FreeAddr(t) + "/app/none:v1"
	if _, err := (&oci.Puller{}).Pull(context.Background(), down); err == nil || !strings.Contains(err.Error(), down) {
		t.Errorf("pull from a registry that is down: %v", err)
	}
}
