package oci_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/kube32/kube32/internal/oci"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// A content-addressed push (kube32 deploy, docs/kubernetes.md) refers to
// what it pushed by digest, pushes it once: the same module or bundle again
// writes nothing to the registry, and another one is another digest. What
// it pushed pulls back, checked against that digest, and the tag latest
// follows the newest push.
func TestPushByDigestWritesOnlyWhatTheRegistryLacks(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	repo := reg.Host + "/shop/api"
	module := testpods.Fixture(t, "good", 65536)

	ref, pushed, err := oci.PushModuleByDigest(ctx, module, repo, false)
	if err != nil || !pushed || !strings.HasPrefix(ref, repo+"@sha256:") {
		t.Fatalf("first push: %q pushed=%v %v; want %s@sha256:… pushed", ref, pushed, err, repo)
	}
	writes := reg.Writes()
	again, pushed, err := oci.PushModuleByDigest(ctx, module, repo, false)
	if err != nil || pushed || again != ref || reg.Writes() != writes {
		t.Errorf("same module again: %q pushed=%v %v, %d writes to the registry; want %q, nothing pushed", again, pushed, err, reg.Writes()-writes, ref)
	}
	got, err := (&oci.Puller{Dir: t.TempDir()}).Pull(ctx, ref)
	if err != nil || string(got.Module) != string(module) {
		t.Fatalf("pull %s: %v; want the module", ref, err)
	}

	other := testpods.Fixture(t, "probe", 65536)
	otherRef, pushed, err := oci.PushModuleByDigest(ctx, other, repo, false)
	if err != nil || !pushed || otherRef == ref {
		t.Fatalf("another module: %q pushed=%v %v; want a new digest, pushed", otherRef, pushed, err)
	}
	if d, err := crane.Digest(repo+":"+oci.ContentTag, crane.Insecure); err != nil || !strings.HasSuffix(otherRef, "@"+d) {
		t.Errorf("tag %s is at %s (%v), want the newest push %s", oci.ContentTag, d, err, otherRef)
	}

	site := t.TempDir()
	testenv.WriteFiles(t, site, siteFiles)
	bundleRef, pushed, err := oci.PushBundleByDigest(ctx, site, reg.Host+"/shop/site", false)
	if err != nil || !pushed {
		t.Fatalf("bundle: %q pushed=%v %v", bundleRef, pushed, err)
	}
	writes = reg.Writes()
	if again, pushed, err := oci.PushBundleByDigest(ctx, site, reg.Host+"/shop/site", false); err != nil || pushed || again != bundleRef || reg.Writes() != writes {
		t.Errorf("same bundle again: %q pushed=%v %v, %d writes; want %q, nothing pushed", again, pushed, err, reg.Writes()-writes, bundleRef)
	}
	if _, _, err := oci.PushModuleByDigest(ctx, module, reg.Host+"/Shop:v1", false); err == nil {
		t.Error("a repository with a tag or capitals was accepted")
	}
}
