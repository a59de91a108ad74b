package precompress

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options says how to precompress a bundle.
type Options struct {
	// GzipOnly keeps only the .gz of a file whose gzip is smaller, saving
	// flash; clients that do not accept gzip then get 406 for it.
	GzipOnly bool
}

// Stats sums a precompressed bundle.
type Stats struct {
	Files       int   // files of the bundle (not counting generated .gz)
	Gzipped     int   // files that got a .gz
	RawBytes    int64 // size of the files as given
	GzipBytes   int64 // what a client accepting gzip downloads: the .gz where there is one, else the file
	StoredBytes int64 // what the bundle takes on flash or card after precompression
}

// Add sums two Stats.
func (s Stats) Add(o Stats) Stats {
	return Stats{s.Files + o.Files, s.Gzipped + o.Gzipped, s.RawBytes + o.RawBytes, s.GzipBytes + o.GzipBytes, s.StoredBytes + o.StoredBytes}
}

// Dir precompresses every file under dir in place: it writes <file>.gz beside
// each compressible file when the gzip is smaller, and with GzipOnly removes
// the original. A .gz that is already there (one the author made) is kept as
// is and counted as that file's gzip.
func Dir(dir string, opts Options) (Stats, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		} else if !d.IsDir() {
			return fmt.Errorf("%s: not a regular file or directory", p)
		}
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	have := make(map[string]bool, len(files))
	for _, f := range files {
		have[f] = true
	}
	var st Stats
	for _, f := range files {
		var fst Stats
		switch {
		case isVariant(f, have):
			continue // counted with the file it is the gzip of
		case have[f+".gz"]:
			fst, err = authored(f)
		default:
			fst, err = file(f, opts)
		}
		if err != nil {
			return Stats{}, err
		}
		st = st.Add(fst)
	}
	return st, nil
}

// authored counts a file whose author supplied its .gz; both are kept.
func authored(path string) (Stats, error) {
	raw, err := os.Stat(path)
	if err != nil {
		return Stats{}, err
	}
	gz, err := os.Stat(path + ".gz")
	if err != nil {
		return Stats{}, err
	}
	return Stats{Files: 1, Gzipped: 1, RawBytes: raw.Size(), GzipBytes: gz.Size(), StoredBytes: raw.Size() + gz.Size()}, nil
}

// isVariant reports whether f is the .gz of another file of the bundle.
func isVariant(f string, have map[string]bool) bool {
	return filepath.Ext(f) == ".gz" && have[f[:len(f)-len(".gz")]]
}

// file precompresses one file that has no author-supplied .gz.
func file(path string, opts Options) (Stats, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Stats{}, err
	}
	n := int64(len(data))
	plain := Stats{Files: 1, RawBytes: n, GzipBytes: n, StoredBytes: n}
	if !Compressible(path) {
		return plain, nil
	}
	gz, err := Gzip(data)
	if err != nil {
		return Stats{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(gz) >= len(data) {
		return plain, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return Stats{}, err
	}
	if err := os.WriteFile(path+".gz", gz, info.Mode().Perm()); err != nil {
		return Stats{}, err
	}
	g := int64(len(gz))
	st := Stats{Files: 1, Gzipped: 1, RawBytes: n, GzipBytes: g, StoredBytes: n + g}
	if opts.GzipOnly {
		if err := os.Remove(path); err != nil {
			return Stats{}, err
		}
		st.StoredBytes = g
	}
	return st, nil
}
