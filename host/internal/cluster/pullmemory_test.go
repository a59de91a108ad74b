package cluster

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/internal/oci"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// heapAfterGC is the Go heap in use once a collection has run: the bytes
// the process still refers to (pulled modules, bundles' answers).
func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// residentAfterGC is the process's resident memory (VmRSS of
// /proc/self/status) once the runtime has collected and handed back to
// the system what it freed: it also counts what lies outside the Go heap,
// such as wazero's compiled code.
func residentAfterGC(t *testing.T) int64 {
	t.Helper()
	debug.FreeOSMemory()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatalf("reading the resident memory: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kib << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// layersOnDisk is what the layers of a Puller's disk cache take.
func layersOnDisk(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	_ = filepath.WalkDir(filepath.Join(dir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// Pulled images are bounded (docs/oci.md, "Pulls and the cache"): a node
// that ran pods of distinct large modules, two pods each, and an Ingress
// that served distinct large StaticBundles, keeps one copy of each module
// while its pods run and none once they are deleted, nor any bundle once
// no route refers to it; its disk cache stays within its limit throughout.
// Memory is read as the Go heap after a collection, which counts exactly
// what is still referred to, and as the resident memory once the runtime
// has returned what it freed, which adds what is outside the heap
// (compiled code); both must come back to where they started.
func TestPulledImagesLeaveMemoryAndTheDiskCacheStaysBounded(t *testing.T) {
	testenv.Tool(t, "clang")
	ctx := context.Background()
	const (
		size    = 8 << 20 // of each module and bundle
		modules = 6
		bundles = 4
		limit   = 3 * size // of the disk cache
	)
	reg := testregistry.Start(t, "127.0.0.1:0")
	good := testpods.Fixture(t, "good", 65536)
	var objects strings.Builder
	for i := range modules {
		ref := fmt.Sprintf("%s/app/m%d:v1", reg.Host, i)
		if _, err := oci.Push(ctx, testpods.Padded(good, ref, size), ref, false); err != nil {
			t.Fatal(err)
		}
		for _, replica := range []string{"a", "b"} {
			fmt.Fprintf(&objects, "apiVersion: v1\nkind: Pod\nmetadata: {name: m%d-%s}\nspec:\n  containers: [{name: c, image: %q}]\n---\n", i, replica, ref)
		}
	}
	objects.WriteString("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: sites}\nspec:\n  rules:\n  - http:\n      paths:\n")
	var bundleObjects strings.Builder
	for i := range bundles {
		ref := fmt.Sprintf("%s/web/b%d:v1", reg.Host, i)
		dir := t.TempDir()
		testenv.WriteFiles(t, dir, map[string]string{"big.bin": string(testpods.Padded(nil, ref, size))})
		if _, err := oci.PushBundle(ctx, dir, ref, false); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&objects, "      - {path: /b%d, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: b%d}}}\n", i, i)
		fmt.Fprintf(&bundleObjects, "---\napiVersion: kube32.io/v1\nkind: StaticBundle\nmetadata: {name: b%d}\nspec: {image: %q}\n", i, ref)
	}
	objs, err := manifest.Decode("pulled.yaml", []byte(objects.String()+bundleObjects.String()))
	if err != nil {
		t.Fatal(err)
	}

	cacheDir := t.TempDir()
	images := t.TempDir()
	testenv.WriteFiles(t, images, map[string]string{"firmware/README": "no images: every one is pulled"})
	heapBefore, residentBefore := heapAfterGC(), residentAfterGC(t)
	c, err := Start(ctx, Options{Images: os.DirFS(images), Objects: objs, Pull: &oci.Puller{Dir: cacheDir, CacheBytes: limit}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	testenv.EventuallyNil(t, "every pod to run and every bundle to be served", func() error {
		for i := range modules {
			for _, replica := range []string{"a", "b"} {
				if p := getPod(t, c.Store, fmt.Sprintf("m%d-%s", i, replica)); p.Status.Phase != "Running" {
					return fmt.Errorf("pod %s: %s %v", p.Name, p.Status.Phase, p.Status.ContainerStatuses)
				}
			}
		}
		for i := range bundles {
			if status, _, body := fetch(t, http.MethodGet, fmt.Sprintf("%s/b%d/big.bin", c.IngressURL(), i), ""); status != http.StatusOK || len(body) < size {
				return fmt.Errorf("GET /b%d/big.bin: %d, %d bytes", i, status, len(body))
			}
		}
		return nil
	})
	heapRunning, residentRunning := heapAfterGC(), residentAfterGC(t)
	onDisk := layersOnDisk(t, cacheDir)
	t.Logf("before: heap %s, resident %s; %d pods of %d modules and %d bundles of %s each running: heap %s, resident %s; disk cache %s (limit %s)",
		mib(heapBefore), mib(residentBefore), 2*modules, modules, bundles, mib(size), mib(heapRunning), mib(residentRunning), mib(onDisk), mib(limit))
	if pulled := int64(modules+bundles) * size; heapRunning-heapBefore < pulled {
		t.Fatalf("running, the heap grew by %s, less than the %s pulled: the test measures nothing", mib(heapRunning-heapBefore), mib(pulled))
	}
	// The pods of a module share its bytes; each pod's runtime keeps a
	// decoded module of its own, with the custom sections (wazero keeps
	// them for the DWARF lines of a trap's stack trace), and a margin.
	if shared := int64(modules+2*modules+bundles+2) * size; heapRunning-heapBefore > shared {
		t.Errorf("running, the heap grew by %s, more than %s: the two pods of a module do not share its bytes", mib(heapRunning-heapBefore), mib(shared))
	}
	if onDisk > limit {
		t.Errorf("the disk cache holds %s, over its limit %s", mib(onDisk), mib(limit))
	}

	if _, err := c.Apply(nil); err != nil { // deletes every pod, bundle and Ingress applied
		t.Fatal(err)
	}
	testenv.EventuallyNil(t, "the pods to be gone and the bundles' routes too", func() error {
		if pods := c.Store.List(kinds.Pod, ""); len(pods) > 0 {
			return fmt.Errorf("%d pods left", len(pods))
		}
		if status, _, _ := fetch(t, http.MethodGet, c.IngressURL()+"/b0/big.bin", ""); status != http.StatusNotFound {
			return fmt.Errorf("GET /b0/big.bin after the Ingress was deleted: %d", status)
		}
		return nil
	})
	// A margin of one image's size for what the cluster itself keeps
	// (objects, events, buffers), all of it small.
	var heapAfter, residentAfter int64
	testenv.EventuallyNil(t, "memory to come back", func() error {
		heapAfter, residentAfter = heapAfterGC(), residentAfterGC(t)
		if heapAfter-heapBefore > size || residentAfter-residentBefore > 2*size {
			return fmt.Errorf("heap %s (before %s, running %s), resident %s (before %s, running %s)",
				mib(heapAfter), mib(heapBefore), mib(heapRunning), mib(residentAfter), mib(residentBefore), mib(residentRunning))
		}
		return nil
	})
	onDisk = layersOnDisk(t, cacheDir)
	t.Logf("all deleted: heap %s, resident %s; disk cache %s", mib(heapAfter), mib(residentAfter), mib(onDisk))
	if onDisk > limit {
		t.Errorf("the disk cache holds %s, over its limit %s", mib(onDisk), mib(limit))
	}
}
