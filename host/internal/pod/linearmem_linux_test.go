package pod

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestLinearMemoryIsMappedOutsideTheGoHeap: a pod's linear memory is a
// mapping of its whole cap, in which the guest's memory.grow grows it in
// place up to the cap (the faults pod's static data intact after), and
// which is unmapped once the pod has stopped.
func TestLinearMemoryIsMappedOutsideTheGoHeap(t *testing.T) {
	const limit = 4 << 16 // four pages
	p, url := faultsPod(t, func(c *Config) { c.MemoryLimit = limit })
	buf := func() []byte { // under the callback lock: no callback is growing it
		p.lock <- struct{}{}
		defer func() { <-p.lock }()
		return p.inst.memory.buf
	}
	if p.inst.memory.onHeap() {
		t.Fatal("the instance's memory is on the Go heap, want a mapping of its own")
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(buf())))
	if !mapped(t, start, limit) {
		t.Fatalf("no mapping holds the memory's cap, %d bytes from %#x", limit, start)
	}

	res := get(t, url+"/grow")
	if res.status != http.StatusInsufficientStorage || !strings.Contains(res.body, "pages=4 grow=-1") {
		t.Fatalf("/grow: %d %q, want 507 and pages=4: the memory grew to its cap and no further", res.status, res.body)
	}
	if b := buf(); uintptr(unsafe.Pointer(unsafe.SliceData(b))) != start || len(b) != limit {
		t.Fatalf("after the growth the memory is %d bytes at %#x, want %d at %#x (in place)", len(b), unsafe.SliceData(b), limit, start)
	}
	wantIntact(t, url, "the growth")

	p.Stop()
	testenv.EventuallyNil(t, "the stopped pod's memory unmapped", func() error {
		if mapped(t, start, 1) {
			return fmt.Errorf("the memory at %#x is still mapped", start)
		}
		return nil
	})
}

// mapped reports whether one mapping of this process holds the n bytes
// from addr (/proc/self/maps).
func mapped(t *testing.T, addr, n uintptr) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		var from, to uintptr
		if _, err := fmt.Sscanf(line, "%x-%x", &from, &to); err == nil && from <= addr && addr+n <= to {
			return true
		}
	}
	return false
}
