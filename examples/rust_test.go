package examples_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// examples/rust: the Rust greeter on a worker calls the C echo pod on the
// control plane through its Service and answers JSON with echo's reply.
func TestRustGreeterCallsCEchoAcrossNodes(t *testing.T) {
	testenv.Tools(t, "clang", "rustc")
	dir := copyExamples(t, "rust")
	build(t, dir)
	c, _ := testserve.Serve(t, dir, "--nodes", "2")

	var got struct {
		Hello      string            `json:"hello"`
		Node       string            `json:"node"`
		EchoStatus int               `json:"echo_status"`
		Echo       map[string]string `json:"echo"`
		Error      string            `json:"error"`
	}
	var body string
	// Both pods may still be starting when serve is ready.
	testenv.EventuallyNil(t, "GET /greet/ada answering with echo's reply", func() error {
		r := testhttp.Do(t, http.MethodGet, c.IngressURL()+"/greet/ada", "")
		body = r.Body
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &got) != nil || got.Error != "" {
			return fmt.Errorf("%d %q %q", r.Status, r.Header.Get("Content-Type"), body)
		}
		return nil
	})
	if got.Hello != "ada" || got.Node != "kube32-worker-1" || got.EchoStatus != 200 || got.Error != "" {
		t.Errorf("greeter reply %s: want hello ada from kube32-worker-1 with echo_status 200", body)
	}
	want := map[string]string{"greeting": "hello from echo", "method": "POST", "path": "/echo/ada", "body": "from greeter"}
	for k, v := range want {
		if got.Echo[k] != v {
			t.Errorf("echo's reply %s = %q, want %q (greeter said %s)", k, got.Echo[k], v, body)
		}
	}
}
