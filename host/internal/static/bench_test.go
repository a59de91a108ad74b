package static

import (
	"bytes"
	"net/http"
	"testing"
	"testing/fstest"
)

// discard is a ResponseWriter that keeps nothing, so that the benchmarks
// measure the handler's own work (go test -bench . -benchmem).
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

var benchFiles = fstest.MapFS{
	"app.js":    {Data: bytes.Repeat([]byte("x"), 50<<10)},
	"app.js.gz": {Data: bytes.Repeat([]byte("z"), 15<<10)},
}

// benchServe measures serve answering GET /app.js with gzip, deflate and br
// accepted.
func benchServe(b *testing.B, serve func(w http.ResponseWriter, r *http.Request)) {
	r, _ := http.NewRequest(http.MethodGet, "/app.js", nil)
	r.Header.Set("Accept-Encoding", "gzip, deflate, br")
	b.ReportAllocs()
	for b.Loop() {
		serve(&discard{h: http.Header{}}, r)
	}
}

// BenchmarkServeFromSnapshot is the path StaticBundles took before Bundle.
func BenchmarkServeFromSnapshot(b *testing.B) {
	snap, err := Snapshot(benchFiles)
	if err != nil {
		b.Fatal(err)
	}
	benchServe(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		Options{Brotli: true}.Serve(w, r, snap, "app.js", http.StatusOK)
	})
}

func BenchmarkBundleServe(b *testing.B) {
	bundle, err := NewBundle(benchFiles, Options{Brotli: true}, func(string) string { return "public, max-age=3600" })
	if err != nil {
		b.Fatal(err)
	}
	benchServe(b, func(w http.ResponseWriter, r *http.Request) { bundle.Serve(w, r, "app.js") })
}
