// Package atomicfile writes files so that a reader (or a board reading a
// flashed card) sees either the old contents or the new, never half a file:
// the data goes to a temporary file in the same directory, is synced, and is
// renamed over the target.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// TempPrefix starts the name of every temporary file, so that a crash leaves
// files that are easy to recognise (and that builds and flashes skip).
const TempPrefix = ".k32tmp-"

// IsTemp reports whether name (a base name) is that of a temporary file
// WriteFile makes: TempPrefix, the target's name, '-' and the decimal digits
// os.CreateTemp puts for its '*'. Only files so named may be cleaned up as
// left by an interrupted write; nothing else is ours to remove.
func IsTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, TempPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i < 1 || i == len(rest)-1 {
		return false
	}
	for _, c := range rest[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Hook, when set (by tests), is called after half of a file's data has been
// written to its temporary file; an error aborts the write as a failing disk
// or a pulled card would.
var Hook func(path string) error

// WriteFile atomically replaces path with data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, perm, func(w io.Writer) error {
		half := len(data) / 2
		if _, err := w.Write(data[:half]); err != nil {
			return err
		}
		if Hook != nil {
			if err := Hook(path); err != nil {
				return err
			}
		}
		_, err := w.Write(data[half:])
		return err
	})
}

// CopyFile atomically replaces dst with the contents of src.
func CopyFile(dst, src string, perm os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return WriteFile(dst, data, perm)
}

func write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	// CreateTemp makes 0600 files; give the file its mode. FAT cards have no
	// modes and refuse chmod (EPERM), which is no reason to fail a flash.
	_ = f.Chmod(perm)
	// Sync before rename: otherwise a power cut can leave the new name
	// pointing at blocks that were never written.
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename or a folder's new entries durable. Some
// filesystems (FAT cards on some systems) refuse to sync a directory; the
// change is made either way, so the error is not worth failing over.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
