package examples_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// examples/echo: the boards' reference echo pod (README.md, "Examples")
// answers POST /echo/hello through the Ingress with its greeting and the
// request it received.
func TestEcho(t *testing.T) {
	c := serveC(t, "echo")
	status, _, body := fetch(t, http.MethodPost, c.IngressURL()+"/echo/hello", "ping")
	var got map[string]string
	if status != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil {
		t.Fatalf("POST /echo/hello: %d %q", status, body)
	}
	want := map[string]string{"greeting": "hello from echo", "method": "POST", "path": "/echo/hello", "body": "ping"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("echo reply %s = %q, want %q", k, got[k], v)
		}
	}
}
