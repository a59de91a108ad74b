package static

import (
	"io/fs"
	"mime"
	"path"
	"strings"
)

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

// contentType is the Content-Type of a file name by its extension.
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

// ValidPath accepts bundle-relative paths only: no leading "/", no
// backslash, no "..", no empty or "." elements.
func ValidPath(name string) bool {
	return name != "" && !strings.HasPrefix(name, "/") && !strings.Contains(name, "\\") && fs.ValidPath(name)
}

// EncodesSeparator says whether an escaped URL path holds an encoded slash
// or backslash (%2F, %5C, any case): decoded, it would read as a path
// separator that the client did not send as one.
func EncodesSeparator(escapedPath string) bool {
	p := strings.ToUpper(escapedPath)
	return strings.Contains(p, "%2F") || strings.Contains(p, "%5C")
}
