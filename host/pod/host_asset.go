package pod

import (
	"context"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// k32RespAsset: (path ptr, path_len u32, status u32) -> i32. Streams a file
// of the pod's image bundle as the whole response, from the fs.File to the
// client with io.Copy, never through guest memory (as the boards stream from
// flash). K32_ERR_NOENT sends nothing and keeps the queued headers, so the
// guest can still answer with a fallback.
func k32RespAsset(p *Pod, ctx context.Context, mod api.Module, a []uint64) int64 {
	s := handleState(ctx)
	if s == nil || s.headSent {
		return int64(abi.ErrInval)
	}
	name, ok := readString(mod, u32(a, 0), u32(a, 1))
	if !ok {
		return int64(abi.ErrFault)
	}
	status := int(u32(a, 2))
	if status == 0 {
		status = http.StatusOK
	}
	if status < 100 || status > 599 || !validAssetPath(name) {
		return int64(abi.ErrInval)
	}
	if p.cfg.Assets == nil {
		return int64(abi.ErrNoEnt)
	}
	plain, hasPlain := openRegular(p.cfg.Assets, name)
	gz, hasGz := openRegular(p.cfg.Assets, name+".gz")
	defer closeIf(plain)
	defer closeIf(gz)

	var f fs.File
	gzip := false
	switch {
	case hasGz && acceptsGzip(s.req):
		f, gzip = gz, true
	case hasPlain:
		f = plain
	case hasGz:
		s.header.Set("Vary", "Accept-Encoding")
		s.header.Set("Content-Type", "text/plain; charset=utf-8")
		s.sendHead(http.StatusNotAcceptable)
		if s.req.Method != http.MethodHead {
			io.WriteString(s.w, "406 Not Acceptable: "+name+" is stored only gzip-compressed and the request does not accept gzip\n")
		}
		return 0
	default:
		return int64(abi.ErrNoEnt)
	}

	h := s.header
	// The same path can answer compressed or not, so caches must key on Accept-Encoding.
	h.Set("Vary", "Accept-Encoding")
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", contentType(name))
	}
	if gzip {
		h.Set("Content-Encoding", "gzip")
	}
	if info, err := f.Stat(); err == nil {
		h.Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	}
	s.sendHead(status)
	if s.req.Method == http.MethodHead {
		return 0
	}
	if _, err := io.Copy(s.w, f); err != nil {
		return int64(abi.ErrIO)
	}
	return 0
}

// validAssetPath accepts bundle-relative paths only: no leading "/", no "..",
// no empty or "." elements.
func validAssetPath(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return false
	}
	for _, elem := range strings.Split(name, "/") {
		if elem == ".." {
			return false
		}
	}
	return fs.ValidPath(name)
}

// openRegular opens name when it is a regular file.
func openRegular(fsys fs.FS, name string) (fs.File, bool) {
	f, err := fsys.Open(name)
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

// acceptsGzip reports whether Accept-Encoding accepts gzip (by name or "*",
// with a q-value above 0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "x-gzip" && coding != "*" {
				continue
			}
			if q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
					continue
				}
			}
			return true
		}
	}
	return false
}

// contentTypes are fixed so that serve answers as the boards do, whatever
// mime.types the host machine has.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
	".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".mjs": "text/javascript; charset=utf-8", ".json": "application/json",
	".map": "application/json", ".txt": "text/plain; charset=utf-8",
	".xml": "application/xml", ".svg": "image/svg+xml", ".png": "image/png",
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".ico": "image/x-icon", ".wasm": "application/wasm",
	".woff": "font/woff", ".woff2": "font/woff2", ".pdf": "application/pdf",
	".webmanifest": "application/manifest+json",
}

// contentType is the Content-Type for a file name by its extension.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
