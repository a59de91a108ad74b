package precompress

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options says how to precompress a bundle.
type Options struct {
	// GzipOnly keeps only the .gz of a file whose gzip is smaller, saving
	// flash; clients that do not accept gzip then get 406 for it.
	GzipOnly bool
	// Brotli also writes <file>.br where brotli beats both the file and its
	// .gz. Only `kube32 serve` serves them: boards serve .gz only, and
	// flashing skips .br files.
	Brotli bool
	// BestGzip writes the smallest .gz the machine can make (see BestGzip)
	// rather than compress/gzip's, for release builds.
	BestGzip bool
}

// Dir precompresses every file under dir in place: it writes <file>.gz beside
// each compressible file when the gzip is smaller, with Brotli <file>.br
// where that is smaller still, and with GzipOnly removes the original of each
// file that got a .gz. A .gz or .br that is already there (one the author
// made) is kept as is and counted as that file's variant; a file with an
// authored .gz keeps its original.
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
		if IsVariant(f, func(name string) bool { return have[name] }) {
			continue // counted with the file it is a variant of
		}
		fst, err := file(f, opts, have)
		if err != nil {
			return Stats{}, err
		}
		st = st.Add(fst)
	}
	return st, nil
}

// IsVariant reports whether name is the .gz or .br of another file, given
// what exists. A .br is a variant of a file or of a file stored only as .gz;
// a .br with neither beside it is a file of its own.
func IsVariant(name string, exists func(string) bool) bool {
	switch {
	case strings.HasSuffix(name, gzipExt):
		return exists(strings.TrimSuffix(name, gzipExt))
	case strings.HasSuffix(name, BrotliExt):
		base := strings.TrimSuffix(name, BrotliExt)
		return exists(base) || exists(base+gzipExt)
	}
	return false
}

// gzipOf is the .gz to write of the file at path: compress/gzip's, or with
// best the smallest (see BestGzip); plain is compress/gzip's.
func gzipOf(path string, data []byte, best bool) (gz, plain []byte, err error) {
	if best {
		return BestGzip(path, data)
	}
	gz, err = Gzip(data)
	return gz, gz, err
}

// file precompresses one file and counts it with its variants.
func file(path string, opts Options, have map[string]bool) (Stats, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Stats{}, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return Stats{}, err
	}
	n := int64(len(data))
	st := Stats{Files: 1, RawBytes: n, StoredBytes: n}
	best := n         // the smallest form so far, what a gzip client downloads
	plainBest := best // as best, had compress/gzip written the .gz

	gzAuthored := have[path+gzipExt]
	switch {
	case gzAuthored:
		gz, err := os.Stat(path + gzipExt)
		if err != nil {
			return Stats{}, err
		}
		st.Gzipped, best = 1, gz.Size()
		st.StoredBytes += gz.Size()
		plainBest = best
	case Compressible(path):
		gz, plain, err := gzipOf(path, data, opts.BestGzip)
		if err != nil {
			return Stats{}, fmt.Errorf("%s: gzip: %w", path, err)
		}
		if int64(len(gz)) < n {
			if err := os.WriteFile(path+gzipExt, gz, info.Mode().Perm()); err != nil {
				return Stats{}, err
			}
			st.Gzipped, best = 1, int64(len(gz))
			st.StoredBytes += best
		}
		plainBest = min(n, int64(len(plain)))
	}
	st.GzipBytes, st.BrotliBytes = best, best
	if opts.BestGzip {
		st.PlainGzipBytes = plainBest
	}

	switch {
	case have[path+BrotliExt]:
		br, err := os.Stat(path + BrotliExt)
		if err != nil {
			return Stats{}, err
		}
		st.Brotlied, st.BrotliBytes = 1, br.Size()
	case opts.Brotli && Compressible(path):
		br, err := Brotli(data)
		if err != nil {
			return Stats{}, fmt.Errorf("%s: brotli: %w", path, err)
		}
		// kube32 serve prefers br: a .br no smaller than the .gz would only
		// make br clients download more.
		if int64(len(br)) < best {
			if err := os.WriteFile(path+BrotliExt, br, info.Mode().Perm()); err != nil {
				return Stats{}, err
			}
			st.Brotlied, st.BrotliBytes = 1, int64(len(br))
		}
	}

	if opts.GzipOnly && st.Gzipped == 1 && !gzAuthored {
		if err := os.Remove(path); err != nil {
			return Stats{}, err
		}
		st.StoredBytes -= n
	}
	return st, nil
}
