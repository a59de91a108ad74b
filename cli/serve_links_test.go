package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// kube32 build never writes a symbolic link, so any link in a build tree
// was planted there; serve reads the tree through os.Root and snapshots
// bundles without links, so none is followed out of it: not a bundle whose
// directory is a link, not a directory link inside a bundle.
func TestServeDoesNotFollowPlantedDirectoryLinksOut(t *testing.T) {
	newBuiltSite(t)
	outside := t.TempDir()
	testenv.WriteFiles(t, outside, map[string]string{"secret.txt": "top secret", "index.html": "top secret"})
	web := filepath.Join("site", "build", "firmware", "images", "web")
	for link, target := range map[string]string{
		filepath.Join(web, "site", "up"): outside,
		filepath.Join(web, "other"):      outside,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(t.TempDir(), "other.yaml")
	os.WriteFile(other, []byte(`apiVersion: kube32.io/v1
kind: StaticBundle
metadata: {name: other}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: other}
spec:
  rules:
    - http:
        paths:
          - path: /other
            pathType: Prefix
            backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: other}}
`), 0o644)

	c, _ := serve(t, "--images", "site/build", "-f", "site/app.yaml", "-f", other)
	for _, p := range []string{"/up/secret.txt", "/other/secret.txt", "/other/", "/other/index.html"} {
		status, _, body := get(t, c.IngressURL()+p)
		if status == 200 || strings.Contains(body, "top secret") {
			t.Errorf("GET %s through a planted link = %d %q", p, status, body)
		}
	}
	if status, _, _ := get(t, c.IngressURL()+"/style.css"); status != 200 {
		t.Errorf("GET /style.css = %d", status)
	}
}
