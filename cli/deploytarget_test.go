package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// kube32 test --url runs a project's plain requests against any address
// (docs/testing.md, "Testing a deployed app"): no build, no cluster; a pod
// or event assert fails, saying it needs --kubeconfig.
func TestKube32TestURLRunsAgainstAnyAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", r.URL.Path)
	}))
	defer srv.Close()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml": "name: app\n",
		"tests/app.hurl": `GET {{ingress}}/board
HTTP 200
[Asserts]
body == "hello from /board\n"
`,
	})
	if code, out := run(t, "test", dir, "--url", srv.URL); code != 0 || !strings.Contains(out, "PASS tests/app.hurl:1 GET /board") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("kube32 test --url: exit %d\n%s", code, out)
	}
	testenv.WriteFiles(t, dir, map[string]string{"tests/app.hurl": `GET {{ingress}}/board
HTTP 200
[Asserts]
pod "default/app" ready == true
`})
	if code, out := run(t, "test", dir, "--url", srv.URL); code != 1 || !strings.Contains(out, "run kube32 test with --kubeconfig and --ingress") {
		t.Errorf("a pod assert under --url: exit %d\n%s", code, out)
	}
}

// The flags of a running app and those of the cluster kube32 test starts
// do not mix; deploy says what it needs. Usage errors exit 2.
func TestDeployAndTestTargetFlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"kube32.yaml": "name: app\n", "tests/a.hurl": "GET {{ingress}}/\nHTTP 200\n"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", dir, "--url", "http://127.0.0.1:1", "--nodes", "2"}, "--nodes shapes the cluster kube32 test starts"},
		{[]string{"test", dir, "--url", "http://127.0.0.1:1", "--ingress", "http://127.0.0.1:2"}, "--ingress and --url: give the address once"},
		{[]string{"test", dir, "--kubeconfig", "k"}, "--kubeconfig reads the cluster of a deployed app"},
		{[]string{"test", dir, "--url", "127.0.0.1:1"}, "want http://HOST[:PORT][/PATH]"},
		{[]string{"deploy", dir, "--registry", "127.0.0.1:5000/app"}, "--kubeconfig FILE is required"},
		{[]string{"deploy", dir, "--kubeconfig", "k"}, "--registry REGISTRY[/PATH] is required"},
		{[]string{"deploy", dir, "--registry", "r", "-o", "yaml"}, "use it with --dry-run"},
		{[]string{"deploy", dir, "--delete", "--dry-run"}, "choose one"},
	} {
		if code, out := run(t, tc.args...); code != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("kube32 %s: exit %d, want 2 and %q:\n%s", strings.Join(tc.args, " "), code, tc.want, out)
		}
	}
}
