package kubelet

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// Issue 19, item 8: the pod port's own answers are the JSON errors of the
// Ingress (docs/ingress.md, "Errors").
func TestPodPortErrorsAreJSON(t *testing.T) {
	k := newKubelet(t, Config{NodeName: "w1", NodeIP: "127.0.0.2", Source: StoreSource(store.New())})
	srv := httptest.NewServer(k.PodServer())
	defer srv.Close()
	for _, c := range []struct {
		what   string
		header []string
		status int
	}{
		{"no " + abi.HeaderPod, nil, http.StatusBadRequest},
		{"a malformed " + abi.HeaderPod, []string{abi.HeaderPod + ": default"}, http.StatusBadRequest},
		{"a pod not on the node", []string{abi.HeaderPod + ": default/absent"}, http.StatusNotFound},
	} {
		got := testhttp.Get(t, srv.URL+"/", c.header...)
		var body map[string]string
		if got.Status != c.status || got.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal([]byte(got.Body), &body) != nil || body["error"] == "" {
			t.Errorf("%s: %s, want %d with a JSON error", c.what, got, c.status)
		}
		// A pod the node does not run (gone, or terminating) is named, so
		// that the sender tries another pod (docs/ingress.md).
		if missing := got.Header.Get(abi.HeaderPodMissing); (c.status == http.StatusNotFound) != (missing == "default/absent") {
			t.Errorf("%s: %s %q", c.what, abi.HeaderPodMissing, missing)
		}
	}
}
