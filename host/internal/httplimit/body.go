package httplimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/kube32/kube32/host/internal/httperror"
)

// ReadBody reads each request's whole body, at most MaxBody bytes, before
// handing the request to h with the body in memory: a pod takes its
// callback slot only once the body is there, so a client that sends slowly
// holds a goroutine and a socket, never the pod. A larger body is answered
// 413, a body that does not arrive within the server's BodyTimeout 408.
// A body already in memory (InMemory: the Ingress's ReadBody, in front of
// the pod's) is passed on as it is.
func ReadBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if InMemory(r) {
			h.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > MaxBody {
			refuse(w, http.StatusRequestEntityTooLarge, bodyTooLarge(r.ContentLength))
			return
		}
		b, err := readAll(io.LimitReader(r.Body, MaxBody+1), r.ContentLength)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			refuse(w, http.StatusRequestTimeout, bodyTimedOut)
			return
		case err != nil:
			refuse(w, http.StatusBadRequest, "reading the request body: "+err.Error())
			return
		case len(b) > MaxBody:
			refuse(w, http.StatusRequestEntityTooLarge, bodyTooLarge(-1))
			return
		}
		r = r.WithContext(r.Context()) // a shallow copy, not the server's request
		r.Body, r.ContentLength, r.TransferEncoding = newReadBody(b), int64(len(b)), nil
		r.GetBody = func() (io.ReadCloser, error) { return newReadBody(b), nil }
		h.ServeHTTP(w, r)
	})
}

// InMemory reports whether r's body is in memory: there is none, or
// ReadBody read it. Only then does reading it never block, is its
// ContentLength exact, and does r.GetBody (when there is a body) give it
// again, as often as another pod needs it. The one test of it for the
// node's servers, the Ingress and the pod runtime alike.
func InMemory(r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	_, read := r.Body.(*readBody)
	return read
}

// readAll reads r to its end like io.ReadAll, into a buffer sized at once
// by size, the request's Content-Length (-1 when unknown).
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size < 0 || size > MaxBody {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, size+1) // the one spare byte sees the end without growing
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) { // more than Content-Length said: read the rest as io.ReadAll does
			rest, err := io.ReadAll(r)
			return append(b, rest...), err
		}
	}
}

// readBody is a body ReadBody has read.
type readBody struct{ *bytes.Reader }

func newReadBody(b []byte) *readBody { return &readBody{bytes.NewReader(b)} }

func (*readBody) Close() error { return nil }

// bodyTooLarge says why a body of n bytes (-1: of an unknown length, found
// past MaxBody while read) is refused.
func bodyTooLarge(n int64) string {
	if n < 0 {
		return fmt.Sprintf("request body larger than %d bytes", MaxBody)
	}
	return fmt.Sprintf("request body of %d bytes: at most %d", n, MaxBody)
}

// bodyTimedOut says why a body that did not arrive within the body timeout
// is refused.
const bodyTimedOut = "request body not received in time"

// refuse answers status and closes the connection, whose body is unread.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Connection", "close")
	httperror.Write(w, status, map[string]string{"error": http.StatusText(status), "reason": msg})
}
