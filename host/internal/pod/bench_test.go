package pod

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkServeHTTP compares one request through a tiny C pod (k32_req_path
// in k32_handle, "hello\n" back) with a plain http.HandlerFunc doing the same
// work, side by side: the difference is the cost of the sandbox.
func BenchmarkServeHTTP(b *testing.B) {
	p := startPod(b, onePage(b, "probe"), nil)
	plain := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() == "/hello" {
			w.Write([]byte("hello\n"))
			return
		}
		http.NotFound(w, r)
	})
	for _, bench := range []struct {
		name string
		h    http.Handler
	}{{"pod", p}, {"handlerfunc", plain}} {
		b.Run(bench.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/hello", nil)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				bench.h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
