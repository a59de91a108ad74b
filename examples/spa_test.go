package examples_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// spaItems is the reply of the api pod of examples/spa to GET /api/items.
type spaItems struct {
	Greeting string `json:"greeting"`
	Items    []struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
	} `json:"items"`
}

// apiEnv reads the api pod's GREETING and ITEMS (one per line) from
// examples/spa/app.yaml, so the test follows the manifest.
func apiEnv(t *testing.T, dir string) (greeting string, items []string) {
	t.Helper()
	objs, err := manifest.DecodeFile(filepath.Join(dir, "app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		p, ok := o.Obj.(*corev1.Pod)
		if !ok || p.Name != "api" {
			continue
		}
		for _, e := range p.Spec.Containers[0].Env {
			switch e.Name {
			case "GREETING":
				greeting = e.Value
			case "ITEMS":
				for _, line := range strings.Split(e.Value, "\n") {
					if line = strings.TrimSpace(line); line != "" {
						items = append(items, line)
					}
				}
			}
		}
	}
	if greeting == "" || len(items) == 0 {
		t.Fatal("app.yaml: pod api sets no GREETING or ITEMS")
	}
	return greeting, items
}

// examples/spa: a single-page app from a StaticBundle at / renders the items
// that the Go pod behind /api reads from its environment.
func TestSPA(t *testing.T) {
	testenv.Tool(t, "go")
	dir := copyExamples(t, "spa")
	greeting, items := apiEnv(t, dir)
	build(t, dir)
	c := serve(t, dir)
	base := c.IngressURL()

	t.Run("GET /api/items reaches the pod", func(t *testing.T) {
		status, header, body := fetch(t, http.MethodGet, base+"/api/items", "")
		var got spaItems
		if status != http.StatusOK || header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(body), &got) != nil {
			t.Fatalf("GET /api/items: %d %v %q", status, header, body)
		}
		if got.Greeting != greeting || len(got.Items) != len(items) {
			t.Fatalf("GET /api/items = %+v, want greeting %q and items %q", got, greeting, items)
		}
		for i, it := range got.Items {
			if it.ID != i+1 || it.Title != items[i] {
				t.Errorf("item %d = %+v, want id %d title %q", i, it, i+1, items[i])
			}
		}
		if status, _, body := fetch(t, http.MethodGet, base+"/api/nothing", ""); status != http.StatusNotFound || !strings.Contains(body, `"path":"/api/nothing"`) {
			t.Errorf("GET /api/nothing: %d %q, want the pod's 404 naming the path", status, body)
		}
	})

	t.Run("the bundle serves the page, and client routes fall back to it", func(t *testing.T) {
		status, header, page := fetch(t, http.MethodGet, base+"/", "")
		if status != http.StatusOK || header.Get("Cache-Control") != "no-cache" || !strings.Contains(page, `<script src="/app.js">`) {
			t.Fatalf("GET /: %d %v\n%s", status, header, page)
		}
		// The items come only from the pod: the static page has none.
		for _, s := range append([]string{greeting}, items...) {
			if strings.Contains(page, s) {
				t.Fatalf("the static page already holds %q; the browser check would prove nothing", s)
			}
		}
		if status, _, route := fetch(t, http.MethodGet, base+"/items/2", ""); status != http.StatusOK || route != page {
			t.Errorf("GET /items/2: %d, want index.html", status)
		}
		for path, ct := range map[string]string{"/app.js": "text/javascript", "/style.css": "text/css"} {
			if status, header, _ := fetch(t, http.MethodGet, base+path, ""); status != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), ct) {
				t.Errorf("GET %s: %d Content-Type %q, want %s", path, status, header.Get("Content-Type"), ct)
			}
		}
	})

	t.Run("in Chromium the page renders the pod's items", func(t *testing.T) {
		var want []string
		for i, title := range items {
			want = append(want, fmt.Sprintf(`<li data-testid="item" data-id="%d">%s</li>`, i+1, title))
		}
		want = append(want,
			`data-testid="greeting">`+greeting+`</p>`,
			`data-testid="status" data-state="loaded">`)
		rendered := func(dom string) bool {
			for _, w := range want {
				if !strings.Contains(dom, w) {
					return false
				}
			}
			return true
		}
		if dom := dumpDOM(t, base+"/", rendered); !rendered(dom) {
			t.Errorf("the page did not render the pod's items; want every one of\n%s\nin the DOM:\n%s", strings.Join(want, "\n"), dom)
		}
	})
}
