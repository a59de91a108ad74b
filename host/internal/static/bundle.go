package static

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
)

// Bundle is a StaticBundle with every answer prepared at load: for each
// file and each of its variants the body in memory and the headers
// (Content-Type, Content-Encoding, Vary, ETag, Content-Length,
// Cache-Control, Accept-Ranges) as ready-made values, so that a request
// costs a map lookup, a few map stores and one write. It answers by the
// rules of Options.Serve, and also If-None-Match (304) and Range (206, 416)
// as http.ServeContent does.
type Bundle struct {
	files  map[string]*bundleFile
	brotli bool
}

// bundleFile is one name of a bundle: its plain form and variants, each nil
// when absent, and its 406.
type bundleFile struct {
	plain, gzip, br *prepared
	notAcceptable   []headerValue
}

// prepared is one prepared representation of a file.
type prepared struct {
	body   []byte
	etag   string
	header []headerValue
}

// headerValue is a header ready to store in an http.Header. Its slice is
// shared by every answer and never appended to in place (its capacity is
// its length), so a handler that adds to it gets a copy.
type headerValue struct {
	name   string
	values []string
}

// NewBundle reads every regular file of files into memory, as Snapshot
// does (symbolic links and other non-regular files left out, so nothing
// served can lead outside it), and prepares its answers with the encodings
// of opts and the Cache-Control that cacheControl gives each name.
func NewBundle(files fs.FS, opts Options, cacheControl func(name string) string) (*Bundle, error) {
	data := map[string][]byte{}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := fs.ReadFile(files, p)
		data[p] = b
		return err
	})
	if err != nil {
		return nil, err
	}
	b := &Bundle{files: map[string]*bundleFile{}, brotli: opts.Brotli}
	names := map[string]bool{}
	for p := range data {
		names[p] = true
		if name, ok := strings.CutSuffix(p, gzipVariant.ext()); ok {
			names[name] = true
		}
	}
	for name := range names {
		cc := cacheControl(name)
		ct := contentType(name)
		f := &bundleFile{}
		if body, ok := data[name]; ok {
			f.plain = newPrepared(body, ct, "", cc)
		}
		if body, ok := data[name+gzipVariant.ext()]; ok {
			f.gzip = newPrepared(body, ct, gzipVariant.coding(), cc)
		}
		if body, ok := data[name+brotliVariant.ext()]; ok && opts.Brotli {
			f.br = newPrepared(body, ct, brotliVariant.coding(), cc)
		}
		f.notAcceptable = []headerValue{{"Vary", one("Accept-Encoding")}, {"Cache-Control", one(cc)}}
		b.files[name] = f
	}
	return b, nil
}

// newPrepared prepares body with its headers; the ETag is strong, a digest
// of the very bytes sent, so each variant has its own.
func newPrepared(body []byte, contentType, coding, cacheControl string) *prepared {
	sum := sha256.Sum256(body)
	a := &prepared{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	a.header = []headerValue{
		{"Content-Type", one(contentType)},
		{"Vary", one("Accept-Encoding")},
		{"Etag", one(a.etag)},
		{"Content-Length", one(strconv.Itoa(len(body)))},
		{"Accept-Ranges", one("bytes")},
		{"Cache-Control", one(cacheControl)},
	}
	if coding != "" {
		a.header = append(a.header, headerValue{"Content-Encoding", one(coding)})
	}
	return a
}

func one(v string) []string { return []string{v} }

// Has reports whether name is a file of the bundle: stored plain or as .gz
// (a .br alone is only ever a variant).
func (b *Bundle) Has(name string) bool {
	f := b.files[name]
	return f != nil && (f.plain != nil || f.gzip != nil)
}

// Serve answers a GET or HEAD for name, or returns fs.ErrNotExist having
// written nothing when name is not a file of the bundle.
func (b *Bundle) Serve(w http.ResponseWriter, r *http.Request, name string) error {
	f := b.files[name]
	if f == nil || (f.plain == nil && f.gzip == nil) {
		return fs.ErrNotExist
	}
	// The keys are canonical already: index the map, skipping Get's check.
	a := f.choose(r.Header["Accept-Encoding"], b.brotli)
	h := w.Header()
	if a == nil {
		set(h, f.notAcceptable)
		notAcceptable(w, r, name)
		return nil
	}
	set(h, a.header)
	if r.Header["Range"] != nil || r.Header["If-Match"] != nil {
		// Ranges and If-Match are rare: net/http answers them, from the
		// same bytes and ETag. It sets Content-Length itself.
		delete(h, "Content-Length")
		delete(h, "Accept-Ranges")
		http.ServeContent(w, r, name, zeroTime, bytes.NewReader(a.body))
		return nil
	}
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && inm[0] != "" && !noneMatch(inm[0], a.etag) {
		// As http.ServeContent answers 304: no Content-* headers.
		delete(h, "Content-Type")
		delete(h, "Content-Length")
		delete(h, "Content-Encoding")
		delete(h, "Accept-Ranges")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, err := w.Write(a.body)
		return err
	}
	return nil
}

// choose is the answer for a request accepting what accept says, by the
// rules of Options.Serve; nil means 406.
func (f *bundleFile) choose(accept []string, brotli bool) *prepared {
	order, n := preference(accept, brotli)
	for _, v := range order[:n] {
		switch {
		case v == gzipVariant && f.gzip != nil:
			return f.gzip
		case v == brotliVariant && f.br != nil:
			return f.br
		}
	}
	return f.plain
}

func set(h http.Header, values []headerValue) {
	for _, hv := range values {
		h[hv.name] = hv.values
	}
}
