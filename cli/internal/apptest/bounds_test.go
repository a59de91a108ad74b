package apptest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 29: a .hurl file of 508 KB whose body uses an 8 KB captured body
// 100,000 times once took kube32 test 2.5 GB. The limit of docs/testing.md
// ("{{name}} is replaced everywhere"): past abi.TestExpandBytesMax an
// expanded request, or an assert, fails its entry at its file:line within
// a second and a few MB (measured as the heap's TotalAlloc around the
// run), and the request is never sent.
func TestExpansionPastTheLimitFailsItsEntryCheaply(t *testing.T) {
	var posted atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(strings.Repeat("p", 8<<10))) })
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) { posted.Add(1) })
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)

	uses := strings.Repeat("{{p}}", 100_000)
	capture := "GET {{ingress}}/page\nHTTP 200\n[Captures]\np: body\n\n"
	for name, tc := range map[string]struct{ src, want string }{
		"request body": {capture + "POST {{ingress}}/echo\n`" + uses + "`\nHTTP 200\n", "tests/t.hurl:6: "},
		"assert":       {capture + "GET {{ingress}}/page\nHTTP 200\n[Asserts]\nbody == \"" + uses + "\"\n", "tests/t.hurl:9: "},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := Parse("tests/t.hurl", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var results []Result
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			results = RunFile(context.Background(), Env{Ingress: s.URL, Wait: time.Second}, f)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			if len(results) != 2 || results[0].Outcome != Pass || results[1].Outcome != Fail || len(results[1].Failures) != 1 {
				t.Fatalf("results %+v; want the capture to pass and the next entry to fail once", results)
			}
			failure := results[1].Failures[0]
			t.Logf("a %d-byte file failed in %s with %d bytes allocated: %s", len(tc.src), took, alloc, failure)
			for _, want := range []string{tc.want, "{{p}} used 100000 times", "abi.TestExpandBytesMax"} {
				if !strings.Contains(failure, want) {
					t.Errorf("failure %q does not say %q", failure, want)
				}
			}
			if took > time.Second || alloc > 100<<20 {
				t.Errorf("the entry took %s and %d bytes to fail, want under 1 s and 100 MB", took, alloc)
			}
			if n := posted.Load(); n != 0 {
				t.Errorf("the request was sent %d times", n)
			}
		})
	}
}

// Within abi.TestExpandBytesMax an expanded body of nearly 16 MB is sent
// whole.
func TestExpansionWithinTheLimitIsSent(t *testing.T) {
	var got atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(strings.Repeat("p", 8<<10))) })
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	src := "GET {{ingress}}/page\nHTTP 200\n[Captures]\np: body\n\nPOST {{ingress}}/echo\n`" + strings.Repeat("{{p}}", 2000) + "`\nHTTP 200\n"
	f, err := Parse("tests/t.hurl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	results := RunFile(context.Background(), Env{Ingress: s.URL, Wait: time.Second}, f)
	if len(results) != 2 || results[1].Outcome != Pass {
		t.Fatalf("results %+v; want both entries to pass", results)
	}
	if want := int64(2000 * 8 << 10); got.Load() != want {
		t.Errorf("the server got %d bytes, want %d", got.Load(), want)
	}
}
