package apiserver_test

import (
	"testing"

	"github.com/kube32/kube32/host/internal/store"
)

// TestDeleteOptionsInEveryMediaTypeOfAnObject: a delete's DeleteOptions
// are read as JSON or YAML, as kube-apiserver reads them, the type the
// body names (docs/serve.md, "Web pages"); the YAML's preconditions hold.
func TestDeleteOptionsInEveryMediaTypeOfAnObject(t *testing.T) {
	s := store.New()
	srv, _ := bareServer(t, s, "")
	base := srv.URL + "/api/v1/namespaces/default/services/"
	for _, ct := range []string{"application/json", "application/yaml"} {
		if code, body := send(t, "POST", srv.URL+"/api/v1/namespaces/default/services", "application/json", goodService); code != 201 {
			t.Fatalf("creating the Service: %d %s", code, body)
		}
		options := map[string]string{
			"application/json": `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"not-its-uid"}}`,
			"application/yaml": "kind: DeleteOptions\napiVersion: v1\npreconditions:\n  uid: not-its-uid\n",
		}[ct]
		if code, body := send(t, "DELETE", base+"web", ct, options); code != 409 {
			t.Errorf("DELETE with a wrong UID precondition as %s: %d %s, want 409", ct, code, body)
		}
		if code, body := send(t, "DELETE", base+"web", ct, map[string]string{
			"application/json": `{"kind":"DeleteOptions","apiVersion":"v1"}`,
			"application/yaml": "kind: DeleteOptions\napiVersion: v1\n",
		}[ct]); code != 200 {
			t.Errorf("DELETE as %s: %d %s, want 200", ct, code, body)
		}
	}
}
