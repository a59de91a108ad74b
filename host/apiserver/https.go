package apiserver

import (
	"context"
	"net/http"
)

// overHTTPSKey marks the requests of the HTTPS API port (HTTPS).
type overHTTPSKey struct{}

// HTTPS is the server's handler for the HTTPS API port: there the cluster
// serves TLS inside its connection budget, whose connections hide the TLS
// from net/http (r.TLS is nil), so the requests are marked here instead.
func (s *Server) HTTPS() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), overHTTPSKey{}, true)))
	})
}

// overHTTPS reports whether r came over HTTPS, where the web view's
// session cookie lives (docs/ui.md).
func overHTTPS(r *http.Request) bool {
	return r.TLS != nil || r.Context().Value(overHTTPSKey{}) != nil
}
