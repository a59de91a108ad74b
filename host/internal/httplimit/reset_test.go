package httplimit

import (
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// ResetOnClose: a connection armed for a reset ends with one when net/http
// closes it (here: the handler gives up, as after a failed write); one
// whose wish was lifted again ends with a graceful close (docs/serve.md,
// "Hostile clients").
func TestResetOnCloseEndsTheConnectionAsAsked(t *testing.T) {
	addr := serve(t, NewConns(10), Limits{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ResetOnClose(r.Context(), true)
		if r.URL.Path == "/lifted" {
			ResetOnClose(r.Context(), false)
		}
		panic(http.ErrAbortHandler) // net/http closes the connection
	}))
	for _, tc := range []struct {
		path      string
		wantReset bool
	}{{"/armed", true}, {"/lifted", false}} {
		c := dial(t, addr)
		if _, err := io.WriteString(c, "GET "+tc.path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadAll(c)
		if reset := errors.Is(err, syscall.ECONNRESET); reset != tc.wantReset {
			t.Errorf("GET %s: the connection ended with %v, want a reset: %v", tc.path, err, tc.wantReset)
		}
	}
}
