package k32http

import (
	"io"
	"net/http"
	"net/url"
	"strconv"

	k32 "github.com/kube32/kube32/sdk/go"
)

// Handle makes h serve every HTTP request of the pod, as k32.Handle does for
// a k32.Handler. Call it from an init function.
func Handle(h http.Handler) {
	if h == nil {
		panic("k32http: Handle(nil)")
	}
	k32.Handle(Adapter(h))
}

// Adapter returns a k32.Handler that serves its requests with h.
func Adapter(h http.Handler) k32.Handler {
	return k32.HandlerFunc(func(w k32.ResponseWriter, r *k32.Request) {
		req, err := NewRequest(r)
		if err != nil {
			k32.Error(w, "400 Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		rw := &responseWriter{w: w}
		h.ServeHTTP(rw, req)
		rw.commit(nil)
	})
}

// NewRequest builds the *http.Request a net/http server would have built for
// r: URL parsed from the request target, Host moved out of the header into
// Host, ContentLength from the header (-1 when unknown).
func NewRequest(r *k32.Request) (*http.Request, error) {
	u, err := url.ParseRequestURI(r.RequestURI())
	if err != nil {
		return nil, err
	}
	header := http.Header(r.Header)
	if header == nil {
		header = make(http.Header)
	}
	host := header.Get("Host")
	header.Del("Host")
	length := int64(-1)
	if cl := header.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			length = n
		}
	}
	body := io.NopCloser(r.Body)
	if length == 0 {
		body = http.NoBody
	}
	return &http.Request{
		Method:        r.Method,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: length,
		Host:          host,
		RequestURI:    r.RequestURI(),
	}, nil
}

// responseWriter is the http.ResponseWriter over a k32.ResponseWriter. The
// two header types share their underlying map type, so Header converts
// without copying and changes reach the k32 response. As in net/http, the
// status waits for the first Write, so a missing Content-Type can be sniffed
// from the body.
type responseWriter struct {
	w         k32.ResponseWriter
	status    int  // from WriteHeader; 0 until called
	committed bool // status and header handed to w
}

var _ http.ResponseWriter = (*responseWriter)(nil)

// Header implements http.ResponseWriter.
func (rw *responseWriter) Header() http.Header { return http.Header(rw.w.Header()) }

// WriteHeader implements http.ResponseWriter.
func (rw *responseWriter) WriteHeader(code int) {
	if rw.status != 0 || rw.committed {
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		return // kube32 cannot send an informational answer ahead of the response
	}
	rw.status = code
}

// Write implements http.ResponseWriter.
func (rw *responseWriter) Write(p []byte) (int, error) {
	rw.commit(p)
	return rw.w.Write(p)
}

// commit hands status and header to the k32 response once, sniffing the
// Content-Type from the first body bytes when the handler set none and the
// body is not empty.
func (rw *responseWriter) commit(first []byte) {
	if rw.committed {
		return
	}
	rw.committed = true
	h := rw.w.Header()
	if _, set := h["Content-Type"]; !set && len(first) > 0 && h.Get("Content-Encoding") == "" {
		h.Set("Content-Type", http.DetectContentType(first))
	}
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	rw.w.WriteHeader(rw.status)
}

// ServeAsset sends the file at path of the pod's image bundle as the whole
// response, as k32.ServeAsset does, from a net/http handler. w must be the
// ResponseWriter the handler received, or wrap it with
// Unwrap() http.ResponseWriter. It returns k32.ErrNoEnt, having sent nothing,
// when the bundle has no such file, and k32.ErrInval once the response has
// started or when w is not one of this package.
func ServeAsset(w http.ResponseWriter, path string, code int) error {
	for i := 0; i < 16; i++ {
		switch v := w.(type) {
		case *responseWriter:
			if v.committed {
				return k32.ErrInval
			}
			if err := k32.ServeAsset(v.w, path, code); err != nil {
				return err
			}
			v.committed = true
			return nil
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return k32.ErrInval
		}
	}
	return k32.ErrInval
}
