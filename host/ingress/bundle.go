package ingress

import (
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/kube32/kube32/bundler/images"
)

// bundleBackend serves a StaticBundle from the firmware's images/web/<name>/
// (the spec's "StaticBundle resource backends").
type bundleBackend struct {
	files fs.FS
	// strip is the matched Prefix removed before the file lookup; "" for
	// routes at the root and for Exact routes.
	strip string
}

func newBundleBackend(imagesRoot fs.FS, name, strip string) (*bundleBackend, error) {
	dir := path.Join("firmware", images.BundleDir(name))
	if _, err := fs.Stat(imagesRoot, dir); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(imagesRoot, dir)
	if err != nil {
		return nil, err
	}
	return &bundleBackend{files: sub, strip: strip}, nil
}

func (b *bundleBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := b.fileName(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if name == "" || (!b.exists(name) && path.Ext(name) == "") {
		// Single-page apps: "/" and extension-less paths fall back to index.html.
		if b.exists("index.html") {
			name = "index.html"
		}
	}
	serveFile(w, r, b.files, name)
}

// fileName maps a request path to a file of the bundle, refusing anything
// that could leave it.
func (b *bundleBackend) fileName(urlPath string) (string, bool) {
	p := strings.TrimPrefix(urlPath, strings.TrimRight(b.strip, "/"))
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "", true
	}
	if strings.Contains(p, "\\") || !fs.ValidPath(p) {
		return "", false
	}
	return p, true
}

func (b *bundleBackend) exists(name string) bool {
	if name == "" {
		return false
	}
	// A directory is not a file: an extension-less path naming one falls
	// back to index.html like any other.
	return isFile(b.files, name) || isFile(b.files, name+".gz")
}

// serveFile sends name from files: the .gz variant with Content-Encoding:
// gzip when the client accepts gzip, 406 when only the .gz exists and the
// client does not, Content-Type by extension, the spec's Cache-Control.
func serveFile(w http.ResponseWriter, r *http.Request, files fs.FS, name string) {
	if name == "" {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	send := name
	if acceptsGzip(r.Header.Get("Accept-Encoding")) && isFile(files, name+".gz") {
		send = name + ".gz"
		h.Set("Content-Encoding", "gzip")
	} else if !isFile(files, name) {
		if isFile(files, name+".gz") {
			http.Error(w, "this file is stored only gzip-compressed; send Accept-Encoding: gzip", http.StatusNotAcceptable)
			return
		}
		http.NotFound(w, r)
		return
	}
	f, err := files.Open(send)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil {
		h.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	if name == "index.html" {
		h.Set("Cache-Control", "no-cache")
	} else {
		h.Set("Cache-Control", "public, max-age=3600")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, f)
	}
}

func isFile(files fs.FS, name string) bool {
	info, err := fs.Stat(files, name)
	return err == nil && info.Mode().IsRegular()
}

// acceptsGzip reports whether an Accept-Encoding value accepts gzip: gzip
// listed with q > 0, or, when gzip is not listed, "*" with q > 0. An explicit
// "gzip;q=0" refuses gzip even next to "*" (RFC 9110, section 12.5.3).
func acceptsGzip(accept string) bool {
	gzipQ, starQ := -1.0, -1.0 // -1: not listed
	for _, part := range strings.Split(accept, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for _, param := range strings.Split(params, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(param), "=")
			if strings.EqualFold(strings.TrimSpace(name), "q") {
				if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
					q = v
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
