// Package static sends files of an image bundle the way both StaticBundle
// backends and k32_resp_asset do (docs/bundles.md, "Serving"): the .gz
// variant with Content-Encoding: gzip when the client accepts gzip, 406 when
// a file is stored only as .gz and the client does not, Content-Type by
// extension, HEAD without a body, and the file streamed from storage. With
// Options.Brotli (StaticBundles under `kube32 serve`) it also sends the .br
// variant to clients that accept br.
package static

import (
	"io"
	"io/fs"
	"net/http"
	"strconv"
)

// Options says which encodings Serve may answer with besides gzip.
type Options struct {
	// Brotli sends <file>.br with Content-Encoding: br to clients whose
	// Accept-Encoding accepts br, in preference to gzip unless the client
	// gives gzip a higher q. A .br is only ever an extra variant: it is
	// served for a file that exists plain or as .gz, never on its own.
	// Boards serve .gz only, and so does k32_resp_asset.
	Brotli bool
}

// Serve sends the bundle file name from files with status, as boards do
// (gzip only); see Options.Serve.
func Serve(w http.ResponseWriter, r *http.Request, files fs.FS, name string, status int) error {
	return Options{}.Serve(w, r, files, name, status)
}

// Serve sends the bundle file name from files with status. Headers already
// set on w (queued by a pod, or Cache-Control from the ingress) go along.
// When neither name nor name.gz is a file it writes nothing and returns
// fs.ErrNotExist, so the caller can answer otherwise.
func (o Options) Serve(w http.ResponseWriter, r *http.Request, files fs.FS, name string, status int) error {
	order, n := preference(r.Header.Values("Accept-Encoding"), o.Brotli)
	h := w.Header()
	var f fs.File
	for _, v := range order[:n] {
		if v == brotliVariant && !IsFile(files, name) && !IsFile(files, name+".gz") {
			continue // a .br alone is not a file of the bundle
		}
		if vf, ok := openRegular(files, name+v.ext()); ok {
			f = vf
			h.Set("Content-Encoding", v.coding())
			break
		}
	}
	if f == nil {
		plain, ok := openRegular(files, name)
		switch {
		case ok:
			f = plain
		case IsFile(files, name+".gz"):
			notAcceptable(w, r, name)
			return nil
		default:
			return fs.ErrNotExist
		}
	}
	defer f.Close()
	// The same path can answer compressed or not, so caches must key on Accept-Encoding.
	h.Set("Vary", "Accept-Encoding")
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", contentType(name))
	}
	if info, err := f.Stat(); err == nil {
		h.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	return send(w, f)
}

// preference is the variants the client accepts (q > 0), in its order of
// preference; on a tie br wins, being the smaller. Without brotli, only gzip.
func preference(accept []string, brotli bool) (order [2]variant, n int) {
	gzipQ := acceptQ(accept, "gzip")
	brQ := 0.0
	if brotli {
		brQ = acceptQ(accept, "br")
	}
	if brQ > 0 && brQ >= gzipQ {
		order[n], n = brotliVariant, n+1
	}
	if gzipQ > 0 {
		order[n], n = gzipVariant, n+1
	}
	if brQ > 0 && brQ < gzipQ {
		order[n], n = brotliVariant, n+1
	}
	return order, n
}

// send streams f to w. An *os.File has a WriteTo that io.Copy would prefer,
// and it cannot see the connection behind an http.ResponseWriter, so it
// copies through a buffer; handing the file to the writer's ReadFrom instead
// lets net/http pass it to the TCP connection, which uses sendfile.
func send(w io.Writer, f fs.File) error {
	if rf, ok := w.(io.ReaderFrom); ok {
		_, err := rf.ReadFrom(f)
		return err
	}
	_, err := io.Copy(w, f)
	return err
}

// notAcceptable answers 406 for a file stored only as .gz.
func notAcceptable(w http.ResponseWriter, r *http.Request, name string) {
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	w.WriteHeader(http.StatusNotAcceptable)
	if r.Method != http.MethodHead {
		io.WriteString(w, "406 Not Acceptable: "+name+" is stored only gzip-compressed and the request does not accept gzip\n")
	}
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
