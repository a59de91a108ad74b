// Package testregistry runs an OCI registry in the test's process, on
// loopback (go-containerregistry's pkg/registry, which keeps blobs and
// manifests in memory), for the tests of `kube32 push` and of the pulls
// of a node (docs/oci.md). It can alter the blobs it sends, as a registry
// or a path to it that corrupts data would, and refuse every request with
// an error message of the test's choosing, as a hostile registry would.
package testregistry

import (
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Registry is a running registry.
type Registry struct {
	// Host is its address, 127.0.0.1:PORT: the first part of a reference.
	Host   string
	tamper atomic.Bool
	refuse atomic.Pointer[string]
	// hang, while open, holds every blob request until it closes or the
	// request's client goes.
	hang atomic.Pointer[chan struct{}]
	// writes counts the requests that write: PUT, POST, PATCH, DELETE.
	writes atomic.Int64
}

// Start runs a registry on addr ("127.0.0.1:0" for a free port) until the
// test ends.
func Start(t testing.TB, addr string) *Registry {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("registry on %s: %v", addr, err)
	}
	r := &Registry{Host: l.Addr().String()}
	regs := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			r.writes.Add(1)
		}
		if message := r.refuse.Load(); message != nil {
			refuse(w, *message)
			return
		}
		if hang := r.hang.Load(); hang != nil && strings.Contains(req.URL.Path, "/blobs/") {
			select {
			case <-*hang:
			case <-req.Context().Done():
				return
			}
		}
		if r.tamper.Load() && req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
			w = &flipper{ResponseWriter: w}
		}
		regs.ServeHTTP(w, req)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

// Writes is how many requests that write (PUT, POST, PATCH, DELETE) the
// registry has received: a push of what it holds already makes none.
func (r *Registry) Writes() int64 { return r.writes.Load() }

// Tamper makes the registry flip one byte of every blob it sends from now
// on: same length, other bytes, so another digest.
func (r *Registry) Tamper() { r.tamper.Store(true) }

// Refuse makes the registry answer every request from now on with 403 and
// an error of the distribution spec (code DENIED) whose message is
// message: a registry's text, which clients quote in their errors.
func (r *Registry) Refuse(message string) { r.refuse.Store(&message) }

func refuse(w http.ResponseWriter, message string) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"code": "DENIED", "message": message}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}

// Hang makes the registry hold every blob request from now on, as a
// registry that accepts a request and never answers, until the returned
// function is called (or the test ends). Manifests are still sent.
func (r *Registry) Hang(t testing.TB) (release func()) {
	hang := make(chan struct{})
	r.hang.Store(&hang)
	var once sync.Once
	release = func() {
		once.Do(func() {
			r.hang.Store(nil)
			close(hang)
		})
	}
	t.Cleanup(release)
	return release
}

// FreeAddr returns a loopback address where nothing listens now, for a
// registry that is down (and may be started there later).
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// flipper flips the last byte of the first write of a response body.
type flipper struct {
	http.ResponseWriter
	done bool
}

func (f *flipper) Write(b []byte) (int, error) {
	if f.done || len(b) == 0 {
		return f.ResponseWriter.Write(b)
	}
	f.done = true
	c := append([]byte(nil), b...)
	c[len(c)-1] ^= 0xff
	return f.ResponseWriter.Write(c)
}
