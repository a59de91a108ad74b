package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// serve runs `kube32 serve args...` in-process on free ports until the
// test ends.
func serve(t *testing.T, args ...string) (*host.Cluster, *testserve.Output) {
	t.Helper()
	return testserve.Serve(t, args...)
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

func postEcho(t *testing.T, c *host.Cluster, body string) map[string]string {
	t.Helper()
	resp, err := http.Post(c.IngressURL()+"/echo/hello", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reply map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST /echo/hello: status %d, decode error %v", resp.StatusCode, err)
	}
	return reply
}

// With no kube32.yaml in the folder or any parent (those of t.TempDir have
// none), serve runs the built-in demo, and says so: the echo pod of
// examples/echo behind the Ingress, and the demo page from a StaticBundle.
// It prints no [NET] uplink line: the uplink up, the default, tells the
// user nothing (docs/nodes.md, "The uplink").
func TestServeWithoutProjectServesTheDemo(t *testing.T) {
	t.Chdir(t.TempDir())
	c, out := serve(t)
	reply := postEcho(t, c, "hi there")
	want := map[string]string{"greeting": "hello from echo", "method": "POST", "path": "/echo/hello", "body": "hi there"}
	for k, v := range want {
		if reply[k] != v {
			t.Errorf("echo reply %s = %q, want %q", k, reply[k], v)
		}
	}
	status, header, page := get(t, c.IngressURL()+"/")
	if status != 200 || !strings.Contains(page, "kube32 demo") || header.Get("Cache-Control") != "no-cache" {
		t.Errorf("GET /: %d %v\n%s", status, header, page)
	}
	if status, _, body := get(t, c.APIURL()+"/readyz"); status != 200 {
		t.Errorf("/readyz = %d %s", status, body)
	}
	for _, line := range []string{"built-in demo (no kube32.yaml in this folder or any parent)", c.IngressURL(), "pod default/echo: Running"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out.String(), "[NET] uplink") {
		t.Errorf("serve printed a [NET] uplink line for the default uplink:\n%s", out)
	}
}

// buildEcho builds a copy of examples/echo and returns the project dir.
// With image "wasm://sd/echo" the pod's module goes to the SD-card tree.
func buildEcho(t *testing.T, image ...string) string {
	t.Helper()
	testenv.Tool(t, "clang")
	dir := filepath.Join(t.TempDir(), "echo")
	if err := os.CopyFS(dir, os.DirFS("../examples/echo")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "build"))
	for _, ref := range image {
		for _, f := range []string{"kube32.yaml", "echo.yaml"} {
			data, _ := os.ReadFile(filepath.Join(dir, f))
			data = []byte(strings.ReplaceAll(string(data), "source: pods/echo", "source: pods/echo\n    image: "+ref))
			data = []byte(strings.ReplaceAll(string(data), "image: wasm://embedded/echo", "image: "+ref))
			os.WriteFile(filepath.Join(dir, f), data, 0o644)
		}
	}
	if code := cli.Run(context.Background(), []string{"build", dir}, cli.IOStreams{Out: io.Discard, ErrOut: os.Stderr}); code != 0 {
		t.Fatalf("kube32 build exited %d", code)
	}
	return dir
}

// Prebuilt images are served without a project: serve --images D -f m.yaml.
func TestServeImagesWithManifest(t *testing.T) {
	dir := buildEcho(t)
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--images", filepath.Join(dir, "build"), "-f", filepath.Join(dir, "echo.yaml"))
	if got := postEcho(t, c, "prebuilt")["body"]; got != "prebuilt" {
		t.Fatalf("echo body = %q", got)
	}
}

// A project is served from its build, and the request reaches the pod's
// k32_handle through Ingress rule -> Service -> pod, for a module in the
// firmware and for one on the SD card.
func TestServeProjectEcho(t *testing.T) {
	for _, image := range []string{"wasm://embedded/echo", "wasm://sd/echo"} {
		t.Run(image, func(t *testing.T) {
			dir := buildEcho(t, image)
			c, _ := serve(t, dir)
			if got := postEcho(t, c, "")["greeting"]; got != "hello from echo" {
				t.Fatalf("greeting = %q", got)
			}
		})
	}
}

func TestServeRefusesBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: ok}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"manifest", []string{"-f", bad}, []string{bad, "document 2", "Pod default/web", "spec.containers[0].image"}},
		{"not a project", []string{t.TempDir()}, []string{"no kube32.yaml here", "kube32 new"}},
		{"images", []string{"--images", t.TempDir()}, []string{"--images", "neither firmware/ nor sd/"}},
		{"default memory limit", []string{"--default-memory-limit", "8 megs"}, []string{`--default-memory-limit "8 megs"`, "not a quantity"}},
		{"default memory limit under a page", []string{"--default-memory-limit", "1Ki"}, []string{"--default-memory-limit 1Ki", "less than one WebAssembly page"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			err := testserve.Try(t, c.args...)
			if err == nil {
				t.Fatal("serve accepted bad input")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// "No request can read outside the bundle": a symlink in the image tree
// that points outside it is not followed.
func TestServeDoesNotFollowSymlinksOutOfTheImages(t *testing.T) {
	newBuiltSite(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("top secret"), 0o644)
	if err := os.Symlink(secret, "site/build/firmware/images/web/site/secret.txt"); err != nil {
		t.Fatal(err)
	}
	c, _ := serve(t, "--images", "site/build", "-f", "site/app.yaml")
	status, _, body := get(t, c.IngressURL()+"/secret.txt")
	if status == 200 || strings.Contains(body, "top secret") {
		t.Fatalf("GET /secret.txt through a symlink = %d %q", status, body)
	}
	if status, _, _ := get(t, c.IngressURL()+"/style.css"); status != 200 {
		t.Fatalf("GET /style.css = %d", status)
	}
}
