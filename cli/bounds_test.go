package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// runMeasured runs a kube32 command in-process, like run, and returns what
// it allocated (the heap's TotalAlloc around it, garbage included) and how
// long it took. It fails t when the command has not ended after a minute,
// calling unblock first.
func runMeasured(t *testing.T, unblock func(), args ...string) (int, string, uint64, time.Duration) {
	t.Helper()
	type result struct {
		code int
		out  string
	}
	done := make(chan result, 1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	go func() {
		code, out := run(t, args...)
		done <- result{code, out}
	}()
	select {
	case r := <-done:
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		return r.code, r.out, after.TotalAlloc - before.TotalAlloc, took
	case <-time.After(time.Minute):
		if unblock != nil {
			unblock()
		}
		t.Fatalf("kube32 %s has not ended after a minute", strings.Join(args, " "))
	}
	return 0, "", 0, 0
}

// Issue 29: `kube32 build` of a pod of language wasm whose prebuilt .wasm
// is 40 MB of 20 million empty sections took 32 s and 3.4 GB before it
// refused it. Such a file is refused before it is read (past
// abi.PrebuiltBytesMax), and one within that size but past
// abi.SectionsMax is refused by the lowering, each naming the limit,
// within 1 s and 100 MB.
func TestBuildRefusesHostilePrebuiltModulesCheaply(t *testing.T) {
	for name, tc := range map[string]struct {
		sections int
		want     string
	}{
		"40 MB of 20M empty sections": {20_000_000, "abi.PrebuiltBytesMax"},
		"8 MB of 4M empty sections":   {4_000_000, "abi.SectionsMax"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{0x00, 0x00}, tc.sections)...)
			testenv.WriteFiles(t, dir, map[string]string{
				"kube32.yaml":       "name: big\npods:\n  - name: big\n    language: wasm\n    source: prebuilt/big.wasm\n",
				"prebuilt/big.wasm": string(wasm),
			})
			wasm = nil
			t.Chdir(dir)
			code, out, alloc, took := runMeasured(t, nil, "build")
			t.Logf("kube32 build of %d sections: exit %d in %s, %d bytes allocated: %s", tc.sections, code, took, alloc, out)
			if code == 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "big") {
				t.Errorf("kube32 build: exit %d: %s; want an error naming pod big and %s", code, out, tc.want)
			}
			if took > time.Second || alloc > 100<<20 {
				t.Errorf("refusing it took %s and %d bytes, want under 1 s and 100 MB", took, alloc)
			}
		})
	}
}

// Issue 29: `kube32 push /dev/zero` passed the size check (its size reads
// 0) and read until out of memory, and push of a FIFO hung, ignoring
// SIGTERM. push reads only a regular file: a device and a FIFO with no
// writer are refused at once, naming the path and what it is, within 1 s
// and 100 MB; so is a file larger than nodes pull, by its size alone.
func TestPushRefusesWhatIsNotARegularFileAtOnce(t *testing.T) {
	reg := testregistry.Start(t, "127.0.0.1:0")
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.wasm")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "huge.wasm")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<30); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"/dev/zero", "/dev/zero is a character device, not a regular file"},
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
		{sparse, sparse + " is 1073741824 bytes, over the limit of 33554432 (abi.OCIModuleBytesMax"},
	} {
		// Should the open of the FIFO wait for a writer, one comes.
		unblock := func() {
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
		code, out, alloc, took := runMeasured(t, unblock, "push", tc.file, reg.Host+"/app/x:v1")
		t.Logf("kube32 push %s: exit %d in %s, %d bytes allocated: %s", tc.file, code, took, alloc, out)
		if code != 1 || !strings.Contains(out, tc.want) || !strings.Contains(out, "nothing pushed") {
			t.Errorf("push %s: exit %d: %s; want exit 1 and an error saying %q", tc.file, code, out, tc.want)
		}
		if took > time.Second || alloc > 100<<20 {
			t.Errorf("refusing %s took %s and %d bytes, want under 1 s and 100 MB", tc.file, took, alloc)
		}
	}
}
