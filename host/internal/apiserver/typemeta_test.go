package apiserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/store"
)

// A create or update whose body leaves out kind and apiVersion takes them
// from the URL, as kube-apiserver does; one that names another kind or API
// version is a 400 naming both.
func TestKindAndAPIVersionDefaultFromTheURL(t *testing.T) {
	s := store.New()
	srv, _ := bareServer(t, s, "")
	base := srv.URL + "/api/v1/namespaces/default/"
	netpols := srv.URL + "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies"
	for _, tt := range []struct {
		name, method, url, ctype, body string
		code                           int
		want                           string // in the answer's body
	}{
		{"JSON without either", "POST", base + "services", "application/json",
			`{"metadata":{"name":"web"},"spec":{"ports":[{"port":80}]}}`, 201, `"kind":"Service","apiVersion":"v1"`},
		{"YAML without apiVersion", "POST", base + "services", "application/yaml",
			"kind: Service\nmetadata: {name: api}\nspec: {ports: [{port: 80}]}\n", 201, `"kind":"Service","apiVersion":"v1"`},
		{"empty kind", "POST", base + "services", "application/json",
			`{"kind":"","metadata":{"name":"db"},"spec":{"ports":[{"port":80}]}}`, 201, `"kind":"Service","apiVersion":"v1"`},
		{"a group's kind", "POST", netpols, "application/json",
			`{"metadata":{"name":"np"},"spec":{"podSelector":{}}}`, 201, `"kind":"NetworkPolicy","apiVersion":"networking.k8s.io/v1"`},
		{"update without either", "PUT", base + "services/web", "application/json",
			`{"metadata":{"name":"web","labels":{"tier":"front"}},"spec":{"ports":[{"port":80}]}}`, 200, `"tier":"front"`},
		{"contradicting kind", "POST", base + "services", "application/json",
			`{"kind":"ConfigMap","metadata":{"name":"x"}}`, 400, `the kind in the body (ConfigMap) does not match the resource services (kind Service)`},
		{"contradicting group", "POST", netpols, "application/json",
			`{"apiVersion":"v1","metadata":{"name":"x"},"spec":{"podSelector":{}}}`, 400, `the API version in the data (v1) does not match the expected API version (networking.k8s.io/v1)`},
		{"contradicting version on update", "PUT", base + "services/web", "application/json",
			`{"apiVersion":"apps/v1","kind":"Service","metadata":{"name":"web"}}`, 400, `the API version in the data (apps/v1) does not match the expected API version (v1)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := send(t, tt.method, tt.url, tt.ctype, tt.body)
			if code != tt.code || !strings.Contains(body, tt.want) {
				t.Fatalf("%s: %d %s, want %d with %s", tt.name, code, body, tt.code, tt.want)
			}
			if code >= 400 {
				var st metav1.Status
				if err := json.Unmarshal([]byte(body), &st); err != nil || st.Reason != metav1.StatusReasonBadRequest {
					t.Errorf("not a BadRequest Status: %s", body)
				}
			}
		})
	}
	if _, ok := s.Get(store.Key{Kind: "Service", Namespace: "default", Name: "x"}); ok {
		t.Error("a refused create was stored")
	}
}
