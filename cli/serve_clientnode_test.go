package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// The official JavaScript client (@kubernetes/client-node, which refuses
// plain HTTP unless told to skip TLS verification) drives serve through the
// kubeconfig serve wrote, as it stands: list, create a typed Service with no
// kind or apiVersion, JSON patch, watch, delete and logs
// (testdata/clientnode/client.mjs).
func TestServeWithTheJavaScriptClient(t *testing.T) {
	node, npm := testenv.Tool(t, "node"), testenv.Tool(t, "npm")
	dir := t.TempDir()
	for _, name := range []string{"package.json", "package-lock.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "clientnode", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}

	t.Chdir(t.TempDir()) // the demo, with its pod echo
	config := filepath.Join(t.TempDir(), "config")
	c, _ := testserve.Serve(t, "--kubeconfig", config, "--context", "kube32", "--cert-dir", t.TempDir())
	run := exec.CommandContext(ctx, node, "client.mjs", config, "kube32")
	run.Dir = dir
	var stderr strings.Builder
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("client-node: %v\n%s%s", err, out, stderr.String())
	}
	var seen struct {
		Pods         []string
		Created      string
		PatchedLabel string
		Logs         string
		Events       []string
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("client-node printed %q: %v", out, err)
	}
	if !reflect.DeepEqual(seen.Pods, []string{"echo"}) {
		t.Errorf("listed pods %q, want the demo's echo", seen.Pods)
	}
	if seen.Created != "v1 Service js-svc" {
		t.Errorf("created %q, want the Service with kind and apiVersion from the URL", seen.Created)
	}
	if seen.PatchedLabel != "client-node" {
		t.Errorf("patched label %q", seen.PatchedLabel)
	}
	if want := []string{"ADDED Service js-svc", "MODIFIED Service js-svc", "DELETED Service js-svc"}; !reflect.DeepEqual(seen.Events, want) {
		t.Errorf("watch events %q, want %q", seen.Events, want)
	}
	status, _, logs := get(t, c.APIURL()+"/api/v1/namespaces/default/pods/echo/log")
	if status != 200 || seen.Logs != logs || seen.Logs == "" {
		t.Errorf("logs through client-node %q, want the pod's %q (status %d)", seen.Logs, logs, status)
	}
	if _, found := c.Get(host.Key{Kind: "Service", Namespace: "default", Name: "js-svc"}); found {
		t.Error("the Service deleted through client-node is still stored")
	}
}
