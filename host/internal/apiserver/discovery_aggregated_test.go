package apiserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// requestLog records the paths a handler was asked for.
type requestLog struct {
	mu    sync.Mutex
	paths []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.paths = append(l.paths, r.URL.Path)
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) discovery() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.paths {
		if p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/") {
			out = append(out, p)
		}
	}
	return out
}

// TestAggregatedDiscovery: kubectl with an empty cache learns the API in
// one request per root, and the aggregated documents list exactly what
// the legacy ones do.
func TestAggregatedDiscovery(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	var log requestLog
	srv := httptest.NewServer(log.wrap(apiserver.New(apiserver.Config{Store: store.New()})))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	config := filepath.Join(dir, "kubeconfig")
	if err := kubeconfig.Write(config, kubeconfig.Entry{Server: srv.URL}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, "--context", "kube32", "--cache-dir", filepath.Join(dir, "cache"), "api-resources", "--no-headers", "-o", "name")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl api-resources: %v\n%s", err, out)
	}
	if got := log.discovery(); strings.Join(got, " ") != "/api /apis" {
		t.Errorf("kubectl api-resources from an empty cache asked for %q, want only /api and /apis", got)
	}

	legacy := legacyResources(t, srv.URL)
	kubectlNames := strings.Fields(string(out))
	var wantNames []string
	for r := range legacy {
		fields := strings.Fields(r)
		name, gv := fields[0], fields[1]
		if strings.Contains(name, "/") {
			continue // kubectl lists no subresources
		}
		if group, _, ok := strings.Cut(gv, "/"); ok {
			name += "." + group
		}
		wantNames = append(wantNames, name)
	}
	sort.Strings(kubectlNames)
	sort.Strings(wantNames)
	if strings.Join(kubectlNames, " ") != strings.Join(wantNames, " ") {
		t.Errorf("kubectl api-resources:\n%s\nlegacy discovery:\n%s", strings.Join(kubectlNames, "\n"), strings.Join(wantNames, "\n"))
	}

	aggregated := map[string]bool{}
	for _, root := range []string{"/api", "/apis"} {
		for _, v := range []string{"v2", "v2beta1"} {
			contentType := "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList"
			r := testhttp.Do(t, "GET", srv.URL+root, "", "Accept: "+contentType+",application/json")
			if r.Status != 200 || r.Header.Get("Content-Type") != contentType {
				t.Fatalf("GET %s as %s: %d, Content-Type %q", root, v, r.Status, r.Header.Get("Content-Type"))
			}
			var list apidiscoveryv2.APIGroupDiscoveryList
			if err := json.Unmarshal([]byte(r.Body), &list); err != nil || list.APIVersion != "apidiscovery.k8s.io/"+v {
				t.Fatalf("GET %s as %s: %v, apiVersion %q", root, v, err, list.APIVersion)
			}
			for _, g := range list.Items {
				for _, ver := range g.Versions {
					gv := metav1.GroupVersion{Group: g.Name, Version: ver.Version}.String()
					for _, res := range ver.Resources {
						aggregated[resourceKey(res.Resource, gv, res.ResponseKind.Kind, res.Scope == apidiscoveryv2.ScopeNamespace, res.Verbs)] = true
						for _, sub := range res.Subresources {
							aggregated[resourceKey(res.Resource+"/"+sub.Subresource, gv, sub.ResponseKind.Kind, res.Scope == apidiscoveryv2.ScopeNamespace, sub.Verbs)] = true
						}
					}
				}
			}
		}
	}
	if len(aggregated) != len(legacy) {
		t.Errorf("aggregated discovery has %d resources, legacy %d", len(aggregated), len(legacy))
	}
	for r := range legacy {
		if !aggregated[r] {
			t.Errorf("legacy discovery's %s is not in the aggregated one", r)
		}
	}
	// A client that asks for plain JSON gets the legacy document.
	if r := testhttp.Do(t, "GET", srv.URL+"/apis", "", "Accept: application/json"); !strings.Contains(r.Body, `"kind":"APIGroupList"`) {
		t.Errorf("GET /apis as JSON: %s", r.Body)
	}
}

func resourceKey(name, gv, kind string, namespaced bool, verbs []string) string {
	v := append([]string(nil), verbs...)
	sort.Strings(v)
	return strings.Join([]string{name, gv, kind, map[bool]string{true: "namespaced", false: "cluster"}[namespaced], strings.Join(v, ",")}, " ")
}

// legacyResources reads every resource of the legacy discovery documents.
func legacyResources(t *testing.T, base string) map[string]bool {
	t.Helper()
	var versions metav1.APIVersions
	var groups metav1.APIGroupList
	getJSON(t, base+"/api", &versions)
	getJSON(t, base+"/apis", &groups)
	paths := []string{}
	for _, v := range versions.Versions {
		paths = append(paths, "/api/"+v)
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			paths = append(paths, "/apis/"+v.GroupVersion)
		}
	}
	out := map[string]bool{}
	for _, p := range paths {
		var list metav1.APIResourceList
		getJSON(t, base+p, &list)
		for _, r := range list.APIResources {
			out[resourceKey(r.Name, list.GroupVersion, r.Kind, r.Namespaced, r.Verbs)] = true
		}
	}
	return out
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	r := testhttp.Do(t, "GET", url, "", "Accept: application/json")
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", url, r.Status, r.Body)
	}
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
