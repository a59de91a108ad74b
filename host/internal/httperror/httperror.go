// Package httperror writes every error that a node's servers answer
// themselves on a pod's request paths (the Ingress and the pod port): a
// JSON object with "error" and what explains it (a "reason", the host and
// path, the Service or pod), never an internal error's text, so that a
// client reads every such answer the same way (docs/ingress.md, "Errors").
package httperror

import (
	"encoding/json"
	"net/http"
)

// Write answers status with a JSON object of fields, which hold at least
// "error".
func Write(w http.ResponseWriter, status int, fields map[string]string) {
	body, _ := json.Marshal(fields)
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
