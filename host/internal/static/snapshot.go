package static

import (
	"bytes"
	"io/fs"
	"path"
	"time"
)

// Snapshot reads every regular file of fsys into memory and returns them as
// a read-only fs.FS. Symbolic links and other non-regular files are left
// out, so nothing served from the snapshot can lead outside it. Image
// bundles are firmware: fixed until the next build, like flash on a board,
// and small; serving them from memory costs no file-system lookups.
func Snapshot(fsys fs.FS) (fs.FS, error) {
	snap := memFS{files: map[string]*memEntry{}, dirs: map[string]bool{".": true}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			snap.dirs[p] = true
		case d.Type().IsRegular():
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			snap.files[p] = &memEntry{name: path.Base(p), data: data, modTime: info.ModTime()}
		}
		return nil // links and devices are left out
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// memFS is a Snapshot.
type memFS struct {
	files map[string]*memEntry
	dirs  map[string]bool
}

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if e, ok := m.files[name]; ok {
		return &memFile{memEntry: e, Reader: bytes.NewReader(e.data)}, nil
	}
	if m.dirs[name] {
		return &memFile{memEntry: &memEntry{name: path.Base(name), dir: true}, Reader: bytes.NewReader(nil)}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// memEntry is one file (or directory) of a snapshot, and its fs.FileInfo.
type memEntry struct {
	name    string
	data    []byte
	modTime time.Time
	dir     bool
}

func (e *memEntry) Name() string       { return e.name }
func (e *memEntry) Size() int64        { return int64(len(e.data)) }
func (e *memEntry) ModTime() time.Time { return e.modTime }
func (e *memEntry) IsDir() bool        { return e.dir }
func (e *memEntry) Sys() any           { return nil }
func (e *memEntry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// memFile is an open memEntry; bytes.Reader gives it Read, Seek and WriteTo.
type memFile struct {
	*memEntry
	*bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.memEntry, nil }
func (f *memFile) Close() error               { return nil }
