// Package apiserver serves the cluster's HTTP API on the API port. For now it
// answers the health endpoints; the Kubernetes REST API grows here.
package apiserver

import (
	"encoding/json"
	"net/http"
)

// Config wires the API server to the cluster.
type Config struct {
	// Ready reports whether the manifests are applied and every pod has
	// started or failed for good.
	Ready func() bool
}

// New returns the API server's handler.
func New(cfg Config) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !cfg.Ready() {
			http.Error(w, "pods are still starting", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{
			"major": "1", "minor": "32", "gitVersion": "v1.32.0-kube32", "platform": "kube32/wasm32",
		})
	})
	return mux
}
