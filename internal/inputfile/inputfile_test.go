package inputfile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Read takes a regular file up to its limit and refuses, naming the path
// and what it is, a larger one, a folder, a device and a FIFO with no
// writer (without waiting for one), and stops when its context has ended.
func TestReadTakesRegularFilesWithinTheLimitOnly(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if got, err := Read(ctx, file, 10, "abi.X"); err != nil || string(got) != "0123456789" {
		t.Errorf("Read of 10 bytes with a limit of 10 = %q, %v", got, err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		ctx        context.Context
		path, want string
		max        int64
	}{
		{ctx, file, file + " is 10 bytes, over the limit of 9 (abi.X)", 9},
		{ctx, dir, dir + " is a folder, not a regular file", 100},
		{ctx, "/dev/zero", "/dev/zero is a character device, not a regular file", 100},
		{ctx, fifo, fifo + " is a named pipe (FIFO), not a regular file", 100},
		{ended, file, "context canceled", 100},
	} {
		if _, err := Read(tc.ctx, tc.path, tc.max, "abi.X"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s) error %v, want %q", tc.path, err, tc.want)
		}
	}
}
