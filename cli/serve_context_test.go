package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// Two serves with two --context names coexist in one kubeconfig, each
// context reaching its own cluster; a third serve with a name in use says
// it replaces it, and each serve on exit leaves a context it no longer owns
// alone.
func TestServeContextsOfTwoClusters(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	t.Chdir(t.TempDir())
	config := filepath.Join(t.TempDir(), "config")
	cacheDir := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--cache-dir", cacheDir, "--request-timeout", "20s"}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	kubectlOK := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	server := func(name string) string {
		t.Helper()
		cfg, err := clientcmd.LoadFromFile(config)
		if err != nil {
			t.Fatal(err)
		}
		if ctx := cfg.Contexts[name]; ctx != nil && cfg.Clusters[ctx.Cluster] != nil {
			return cfg.Clusters[ctx.Cluster].Server
		}
		return ""
	}

	a, aOut, stopA := testserve.Start(t, "--kubeconfig", config, "--context", "a")
	b, bOut, stopB := testserve.Start(t, "--kubeconfig", config, "--context", "b")
	if server("a") != a.APITLSURL() || server("b") != b.APITLSURL() || a.APITLSURL() == b.APITLSURL() {
		t.Fatalf("contexts a -> %q, b -> %q; want %q, %q", server("a"), server("b"), a.APITLSURL(), b.APITLSURL())
	}
	for _, s := range []struct{ name, out string }{{"a", aOut.String()}, {"b", bOut.String()}} {
		if !strings.Contains(s.out, "kubectl --context "+s.name+" get pods") || strings.Contains(s.out, "replacing") {
			t.Errorf("serve --context %s output:\n%s", s.name, s.out)
		}
	}
	for _, name := range []string{"a", "b"} {
		if out := kubectlOK("--context", name, "get", "pods", "-o", "name"); strings.TrimSpace(out) != "pod/echo" {
			t.Errorf("kubectl --context %s get pods: %q, want the demo's pod/echo", name, out)
		}
	}
	kubectlOK("--context", "a", "create", "namespace", "only-a")
	kubectlOK("--context", "a", "get", "namespace", "only-a")
	if out, err := run("--context", "b", "get", "namespace", "only-a"); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("cluster b has the namespace created through context a: %v\n%s", err, out)
	}

	// A third serve takes context a over, saying so.
	c, cOut, stopC := testserve.Start(t, "--kubeconfig", config, "--context", "a")
	want := "replacing context a of the serve at " + a.APITLSURL() + "; use --context to keep both"
	if !strings.Contains(cOut.String(), want) {
		t.Errorf("the serve replacing context a does not say %q:\n%s", want, cOut)
	}
	if server("a") != c.APITLSURL() {
		t.Errorf("context a -> %q, want the third serve's %q", server("a"), c.APITLSURL())
	}
	if out, err := run("--context", "a", "get", "namespace", "only-a"); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("context a still reaches the first cluster: %v\n%s", err, out)
	}

	// The serve it replaced leaves context a alone on exit.
	stopA()
	if server("a") != c.APITLSURL() {
		t.Errorf("after the replaced serve stopped, context a -> %q, want %q", server("a"), c.APITLSURL())
	}
	kubectlOK("--context", "a", "get", "pods")

	// The last serve of context a removes it; context b stays until its serve stops.
	stopC()
	if got := server("a"); got != "" {
		t.Errorf("after its last serve stopped, context a -> %q, want none", got)
	}
	if server("b") != b.APITLSURL() {
		t.Errorf("context b -> %q after the serves of a stopped, want %q", server("b"), b.APITLSURL())
	}
	stopB()
	if got := server("b"); got != "" {
		t.Errorf("after its serve stopped, context b -> %q, want none", got)
	}
}

func TestServeRefusesAnEmptyContext(t *testing.T) {
	if code, out := testserve.Run(t, "serve", "--context", ""); code != 2 || !strings.Contains(out, "--context") {
		t.Errorf("serve --context '': exit %d\n%s", code, out)
	}
}
