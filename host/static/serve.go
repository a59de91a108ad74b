// Package static sends files of an image bundle the way the spec says both
// StaticBundle backends and k32_resp_asset do: the .gz variant with
// Content-Encoding: gzip when the client accepts gzip, 406 when a file is
// stored only as .gz and the client does not, Content-Type by extension,
// HEAD without a body, and the file streamed from storage.
package static

import (
	"io"
	"io/fs"
	"net/http"
	"strconv"
)

// Serve sends the bundle file name from files with status. Headers already
// set on w (queued by a pod, or Cache-Control from the ingress) go along.
// When neither name nor name.gz is a file it writes nothing and returns
// fs.ErrNotExist, so the caller can answer otherwise.
func Serve(w http.ResponseWriter, r *http.Request, files fs.FS, name string, status int) error {
	plain, hasPlain := openRegular(files, name)
	gz, hasGz := openRegular(files, name+".gz")
	defer closeIf(plain)
	defer closeIf(gz)

	h := w.Header()
	var f fs.File
	switch {
	case hasGz && AcceptsGzip(r.Header.Values("Accept-Encoding")...):
		f = gz
		h.Set("Content-Encoding", "gzip")
	case hasPlain:
		f = plain
	case hasGz:
		h.Set("Vary", "Accept-Encoding")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Del("Content-Length")
		w.WriteHeader(http.StatusNotAcceptable)
		if r.Method != http.MethodHead {
			io.WriteString(w, "406 Not Acceptable: "+name+" is stored only gzip-compressed and the request does not accept gzip\n")
		}
		return nil
	default:
		return fs.ErrNotExist
	}
	// The same path can answer compressed or not, so caches must key on Accept-Encoding.
	h.Set("Vary", "Accept-Encoding")
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", ContentType(name))
	}
	if info, err := f.Stat(); err == nil {
		h.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := io.Copy(w, f)
	return err
}

// IsFile reports whether name is a regular file of files.
func IsFile(files fs.FS, name string) bool {
	info, err := fs.Stat(files, name)
	return err == nil && info.Mode().IsRegular()
}

// openRegular opens name when it is a regular file.
func openRegular(files fs.FS, name string) (fs.File, bool) {
	f, err := files.Open(name)
	if err != nil {
		return nil, false
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	return f, true
}

func closeIf(f fs.File) {
	if f != nil {
		f.Close()
	}
}
