package cli_test

import (
	"errors"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// serve builds the project and runs what the build loaded: kube32.yaml
// and each manifest are read once, not again after the build (issue 35,
// "serve loads the project's manifests once"). The kernel counts the
// opens (inotify), so nothing in serve is instrumented for the test.
func TestServeLoadsTheProjectOnce(t *testing.T) {
	dir := buildEcho(t)
	files := []string{"kube32.yaml", "echo.yaml"}
	opens := watchOpens(t, dir, files)
	serve(t, dir)
	got := opens()
	for _, f := range files {
		if got[f] != 1 {
			t.Errorf("serve opened %s %d times, want once", f, got[f])
		}
	}
}

// watchOpens watches files of dir for opens; the function it returns
// counts those so far, by name.
func watchOpens(t *testing.T, dir string, files []string) func() map[string]int {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	names := map[int32]string{}
	for _, f := range files {
		wd, err := unix.InotifyAddWatch(fd, filepath.Join(dir, f), unix.IN_OPEN)
		if err != nil {
			t.Fatalf("inotify %s: %v", f, err)
		}
		names[int32(wd)] = f
	}
	count := map[string]int{}
	return func() map[string]int {
		buf := make([]byte, 64*unix.SizeofInotifyEvent)
		for {
			n, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) {
				return count
			}
			if err != nil {
				t.Fatalf("reading inotify: %v", err)
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Mask&unix.IN_OPEN != 0 {
					count[names[ev.Wd]]++
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}
