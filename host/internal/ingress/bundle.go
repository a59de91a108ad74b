package ingress

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/internal/static"
)

// bundleBackend serves a StaticBundle from the firmware's images/web/<name>/
// (docs/bundles.md, "Serving"). The controller runs only under
// `kube32 serve`, so bundles also answer with their .br variants (written
// when a bundle sets brotli: true); boards serve .gz only.
type bundleBackend struct {
	files *static.Bundle
	// strip is the matched Prefix removed before the file lookup; "" for
	// routes at the root and for Exact routes.
	strip string
}

// loadBundle reads StaticBundle name from the firmware's images/web/<name>/
// into memory, symbolic links left out, and prepares its answers: no
// request can read outside the bundle, and the firmware does not change
// while it is served.
func loadBundle(imagesRoot fs.FS, name string) (*static.Bundle, error) {
	dir := path.Join("firmware", images.BundleDir(name))
	if _, err := fs.Stat(imagesRoot, dir); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(imagesRoot, dir)
	if err != nil {
		return nil, err
	}
	return static.NewBundle(sub, serveOptions, cacheControl)
}

func (b *bundleBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed", "reason": "a StaticBundle answers GET and HEAD"})
		return
	}
	name, ok := b.fileName(r.URL)
	if !ok {
		writeError(w, http.StatusNotFound, map[string]string{"error": "no such file", "path": r.URL.Path,
			"reason": "the path leaves the bundle"})
		return
	}
	if name == "" || (path.Ext(name) == "" && !b.exists(name)) {
		// Single-page apps: "/" and extension-less paths fall back to
		// index.html.
		if b.exists("index.html") {
			name = "index.html"
		}
	}
	serveFile(w, r, b.files, name)
}

// fileName maps a request path to a file of the bundle, refusing anything
// that could leave it: an encoded slash or backslash is refused before the
// decoded path is looked at, where it would read as a separator.
func (b *bundleBackend) fileName(u *url.URL) (string, bool) {
	if static.EncodesSeparator(u.EscapedPath()) {
		return "", false
	}
	p := strings.TrimPrefix(u.Path, strings.TrimRight(b.strip, "/"))
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "", true
	}
	if !static.ValidPath(p) {
		return "", false
	}
	return p, true
}

func (b *bundleBackend) exists(name string) bool {
	if name == "" {
		return false
	}
	// A directory is not a file: an extension-less path naming one falls
	// back to index.html like any other. Nor is a .br alone: it is only
	// ever a variant of a file stored plain or as .gz.
	return b.files.Has(name)
}

// serveOptions are those of StaticBundles under `kube32 serve`: .br variants
// go to clients that accept br.
var serveOptions = static.Options{Brotli: true}

// cacheControl is the boards' Cache-Control: no-cache for /index.html,
// public, max-age=3600 for everything else.
func cacheControl(name string) string {
	if name == "index.html" {
		return "no-cache"
	}
	return "public, max-age=3600"
}

// serveFile sends name, or a 404 when the bundle has no such file.
func serveFile(w http.ResponseWriter, r *http.Request, files *static.Bundle, name string) {
	if err := files.Serve(w, r, name); errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, map[string]string{"error": "no such file", "path": r.URL.Path})
	}
}
