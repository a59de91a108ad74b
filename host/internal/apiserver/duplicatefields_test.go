package apiserver_test

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// Issue 19, item 3: a body that gives a key twice is refused with
// fieldValidation=Strict and warned about with Warn (the API's default),
// as kube-apiserver's strict decoder does, over real HTTP and real kubectl,
// rather than stored with the last value winning.
func TestDuplicateFieldsAreStrictDecodingErrors(t *testing.T) {
	e, s := storeEnv(t)
	base := e.apiURL + "/api/v1/namespaces/default/pods"
	dupJSON := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"c","image":"wasm://embedded/echo"}]}}`
	dupYAML := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec:\n  containers: [{name: c, image: \"wasm://embedded/echo\"}]\n"
	version := s.Version()
	for _, tc := range []struct{ name, method, url, ctype, body, want string }{
		{"JSON create", "POST", base + "?fieldValidation=Strict", "application/json", dupJSON, `duplicate field \"metadata.name\"`},
		{"YAML create", "POST", base + "?fieldValidation=Strict", "application/yaml", dupYAML, `key \"name\" already set in map`},
		{"YAML create without kind", "POST", base + "?fieldValidation=Strict", "application/yaml", strings.Replace(dupYAML, "apiVersion: v1\nkind: Pod\n", "", 1), `key \"name\" already set in map`},
		{"server-side apply", "PATCH", base + "/b?fieldManager=t&fieldValidation=Strict", "application/apply-patch+yaml", dupYAML, `error strict decoding YAML`},
	} {
		r := testhttp.Do(t, tc.method, tc.url, tc.body, "Content-Type: "+tc.ctype)
		if r.Status != 400 || !strings.Contains(r.Body, tc.want) || !strings.Contains(r.Body, `"reason":"BadRequest"`) {
			t.Errorf("%s with fieldValidation=Strict: %s, want 400 BadRequest saying %s", tc.name, r, tc.want)
		}
	}
	if s.Version() != version {
		t.Errorf("the store changed: version %d -> %d", version, s.Version())
	}

	// Warn sends one warning per field, as kube-apiserver does.
	r := testhttp.Do(t, "POST", base, strings.Replace(dupJSON, `"spec":{`, `"spec":{"nodeNmae":"x",`, 1), "Content-Type: application/json")
	warnings := r.Header.Values("Warning")
	if r.Status != 201 || len(warnings) != 2 || warnings[0] != `299 - "duplicate field \"metadata.name\""` || warnings[1] != `299 - "unknown field \"spec.nodeNmae\""` {
		t.Errorf("with fieldValidation=Warn (the default): %s, Warning %q; want 201 and a warning per field", r, warnings)
	}

	// kubectl apply and create read a file's YAML into JSON before sending
	// it, which keeps the last of duplicate keys (kube-apiserver never sees
	// them either); kubectl create --raw sends the body as it is.
	file := manifest(t, strings.Replace(dupJSON, `"name":"b"`, `"name":"c"`, 1))
	out := e.run(t, true, "create", "--raw", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "-f", file)
	if !strings.Contains(out, `duplicate field "metadata.name"`) {
		t.Errorf("kubectl create --raw with fieldValidation=Strict: %s, want the duplicate field named", out)
	}
	if _, ok := s.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "c"}); ok {
		t.Error("the pod with a duplicate key was stored")
	}
	out = e.run(t, false, "create", "--raw", "/api/v1/namespaces/default/pods", "-f", file)
	if !strings.Contains(out, `Warning: duplicate field "metadata.name"`) {
		t.Errorf("kubectl create --raw: %s, want kubectl to print the warning", out)
	}
}
