// Package inputfile reads a file that a user names as input (the module
// `kube32 push` sends, a prebuilt pod's .wasm) the one bounded way: a
// regular file only, no more than a limit, without waiting on a FIFO.
package inputfile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Read returns the contents of the regular file at path, of at most max
// bytes, refusing without reading anything else, each error naming path: a
// folder, a device (/dev/zero, whose size reads 0), a FIFO or a socket,
// and a file of more than max bytes (limit names that bound in the error,
// e.g. "abi.OCIModuleBytesMax"). The file is opened non-blocking, so a
// FIFO with no writer is refused at once rather than waited on, and read
// through an io.LimitReader, so one that grows while it is read is refused
// too. Reading stops when ctx ends.
func Read(ctx context.Context, path string, max int64, limit string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, kind(info.Mode()))
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d (%s)", path, info.Size(), max, limit)
	}
	var buf bytes.Buffer
	buf.Grow(int(info.Size()) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(ctxReader{ctx, f}, max+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s grew past the limit of %d bytes (%s) while it was read", path, max, limit)
	}
	return buf.Bytes(), nil
}

// kind names what a file that is not regular is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a file of type " + m.Type().String()
}

// ctxReader ends a read when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
