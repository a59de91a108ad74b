package apiserver

import (
	"net/http"

	"github.com/kube32/kube32/host/internal/apistatus"
)

// beginStream moves the request's connection to the stream class of the
// connection budget before a watch, a followed log or a port-forward
// answers (apistatus.BeginStream, shared with the web view's events).
func beginStream(w http.ResponseWriter, r *http.Request) error { return apistatus.BeginStream(w, r) }
