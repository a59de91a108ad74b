package apiauth

import (
	"context"
	"net/http"
)

// overHTTPSKey marks the requests of the HTTPS API port (MarkHTTPS).
type overHTTPSKey struct{}

// MarkHTTPS is h for the HTTPS API port: there the cluster serves TLS
// inside its connection budget, whose connections hide the TLS from
// net/http (r.TLS is nil), so the requests are marked here instead.
func MarkHTTPS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), overHTTPSKey{}, true)))
	})
}

// OverHTTPS reports whether r came over HTTPS, where the web view's
// session cookie lives (docs/ui.md).
func OverHTTPS(r *http.Request) bool {
	return r.TLS != nil || r.Context().Value(overHTTPSKey{}) != nil
}
