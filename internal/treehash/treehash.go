// Package treehash hashes a directory tree (names, executable bits and
// contents) for build stamps: equal hashes mean equal inputs.
package treehash

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options select what the hash covers.
type Options struct {
	// Exclude lists absolute directories to leave out (a project's build
	// directory when a source directory contains it).
	Exclude []string
	// SkipHidden leaves out directories whose name starts with "." (.git,
	// .cache): right for sources, wrong for a web site's .well-known.
	SkipHidden bool
}

// Write writes the relative path, size, executable bit and contents of every
// file under dir to h, in lexical order.
func Write(h io.Writer, dir string, opts Options) error {
	skip := map[string]bool{}
	for _, e := range opts.Exclude {
		skip[filepath.Clean(e)] = true
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (skip[p] || opts.SkipHidden && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			// A link to a file counts as the file (builds copy its
			// contents); anything else only by its name and type.
			if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
				fmt.Fprintf(h, "%s %v\n", filepath.ToSlash(rel), d.Type())
				return nil
			}
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d %v\n", filepath.ToSlash(rel), info.Size(), info.Mode().Perm()&0o100)
		_, err = io.Copy(h, f)
		return err
	})
}
