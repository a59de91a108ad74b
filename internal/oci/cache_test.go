package oci_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/oci"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// cacheBytes is what the layers of a disk cache take, and how many refer
// to modules.
func cacheBytes(t *testing.T, dir string) (total int64, refs int) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if info, err := d.Info(); err == nil && filepath.Base(filepath.Dir(filepath.Dir(path))) == "blobs" {
			total += info.Size()
		}
		if filepath.Base(filepath.Dir(path)) == "refs" {
			refs++
		}
		return nil
	})
	return total, refs
}

// The disk cache keeps at most CacheBytes of layers: past it the least
// recently used (pulled or read) go first, with their references, and a
// reference whose layer went is pulled again.
func TestDiskCacheDropsTheLeastRecentlyUsedPastItsLimit(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	good := testpods.Fixture(t, "good", 65536)
	const size = 1 << 20
	var refs []string
	for i := range 5 {
		ref := fmt.Sprintf("%s/app/m%d:v1", reg.Host, i)
		if _, err := oci.Push(ctx, testpods.Padded(good, ref, size), ref, false); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	dir := t.TempDir()
	limit := int64(3*size + size/2) // three layers
	pull := func(ref string) {
		t.Helper()
		if _, err := (&oci.Puller{Dir: dir, CacheBytes: limit}).Pull(ctx, ref); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // distinct modification times
	}
	pull(refs[0])
	pull(refs[1])
	pull(refs[2])
	// m0 is used again (a pod started from the cache): m1 is now the least
	// recently used.
	if _, ok := (&oci.Puller{Dir: dir}).Cached(refs[0]); !ok {
		t.Fatal("m0 is not in the cache")
	}
	time.Sleep(10 * time.Millisecond)
	pull(refs[3])
	pull(refs[4])
	total, n := cacheBytes(t, dir)
	if total > limit || n != 3 {
		t.Errorf("the cache holds %d bytes for %d references, want at most %d for 3", total, n, limit)
	}
	for i, want := range []bool{true, false, false, true, true} {
		if _, ok := (&oci.Puller{Dir: dir}).Cached(refs[i]); ok != want {
			t.Errorf("m%d cached: %v, want %v", i, ok, want)
		}
	}
	// A reference whose layer went is pulled again.
	img, err := (&oci.Puller{Dir: dir, CacheBytes: limit}).Pull(ctx, refs[1])
	if err != nil || len(img.Module) < size {
		t.Fatalf("m1 pulled again: %v", err)
	}
	if total, _ := cacheBytes(t, dir); total > limit {
		t.Errorf("after another pull the cache holds %d bytes, over its limit %d", total, limit)
	}
}

// A Puller keeps a module in memory only while its *Image is held: the
// holders of one reference share one copy, and once nothing holds it the
// module is gone from memory (here, with no disk cache, Cached has nothing).
func TestPullerKeepsAModuleInMemoryWhileItIsHeld(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/app/good:v1"
	if _, err := oci.Push(ctx, testpods.Fixture(t, "good", 65536), ref, false); err != nil {
		t.Fatal(err)
	}
	p := &oci.Puller{}
	img, err := p.Pull(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if again, ok := p.Cached(ref); !ok || again != img {
		t.Fatalf("Cached while the image is held: %p %v, want the same image %p", again, ok, img)
	}
	runtime.KeepAlive(img)
	runtime.GC()
	if _, ok := p.Cached(ref); ok {
		t.Error("a module that nothing holds is still in memory")
	}
}
