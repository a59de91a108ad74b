package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// ingressPolicy is a NetworkPolicy with an ingress rule, which kube32 does
// not enforce; egressPolicy one of egress alone.
const (
	ingressPolicy = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: NAME}\nspec:\n  podSelector: {matchLabels: {app: web}}\n" +
		"  policyTypes: [Ingress, Egress]\n  ingress: [{from: [{podSelector: {matchLabels: {app: front}}}]}]\n  egress: [{}]\n"
	egressPolicy = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: egress-only}\nspec:\n  podSelector: {}\n  policyTypes: [Egress]\n  egress: [{}]\n"
	// ingressWarning is admission's warning about ingressPolicy.
	ingressWarning = "spec.ingress: ingress rules are not enforced: kube32 enforces the egress of NetworkPolicies only (docs/networkpolicy.md): the pods this policy selects still accept every connection"
)

// Issue 30, item 9: a NetworkPolicy with ingress rules, which kube32
// stores and does not enforce ("NetworkPolicy ingress rules are stored and
// not enforced", docs/networkpolicy.md), is accepted with a warning:
// `kube32 serve -f` prints it for the file, and the API sends it as a
// Warning header in kube-apiserver's form, which the real kubectl prints
// on apply. A policy of egress alone has none.
func TestNetworkPolicyIngressRulesWarn(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	dir := t.TempDir()
	t.Chdir(dir) // no project: serve runs the demo
	file := filepath.Join(dir, "policies.yaml")
	if err := os.WriteFile(file, []byte(strings.Replace(ingressPolicy, "NAME", "from-file", 1)+"---\n"+egressPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "kubeconfig")
	_, out := serve(t, "-f", file, "--kubeconfig", config, "--context", "warn")
	want := "warning: " + file + ": document 1 (NetworkPolicy default/from-file): " + ingressWarning + "\n"
	if got := out.String(); !strings.Contains(got, want) || strings.Count(got, "warning: ") != 1 {
		t.Errorf("serve -f printed:\n%s\nwant the one warning %q", got, want)
	}

	apply := func(manifest string) (string, string) {
		t.Helper()
		cmd := exec.Command(kubectl, "--cache-dir", t.TempDir(), "--context", "warn", "apply", "-f", "-")
		cmd.Env = append(os.Environ(), "KUBECONFIG="+config)
		cmd.Stdin = strings.NewReader(manifest)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl apply: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	stdout, stderr := apply(strings.Replace(ingressPolicy, "NAME", "applied", 1))
	if !strings.Contains(stdout, "networkpolicy.networking.k8s.io/applied created") || stderr != "Warning: "+ingressWarning+"\n" {
		t.Errorf("kubectl apply of a policy with ingress rules:\nstdout %q\nstderr %q\nwant the Warning %q", stdout, stderr, ingressWarning)
	}
	// An update warns again, as kube-apiserver's WarningsOnUpdate do.
	if _, stderr := apply(strings.Replace(strings.Replace(ingressPolicy, "NAME", "applied", 1), "app: front", "app: other", 1)); !strings.Contains(stderr, "Warning: "+ingressWarning) {
		t.Errorf("kubectl apply of a changed policy: stderr %q", stderr)
	}
	if stdout, stderr := apply(strings.Replace(egressPolicy, "egress-only", "second-egress", 1)); !strings.Contains(stdout, "created") || stderr != "" {
		t.Errorf("kubectl apply of a policy of egress alone: stdout %q, stderr %q, want no warning", stdout, stderr)
	}
}

// Issue 30, item 9: `kube32 build` prints the warnings of what would be
// silently ineffective: the NetworkPolicy's ingress rules, with the file,
// document and object, and a Pod whose module imports k32_http_call
// without SERVICE_CALL among its capabilities.
func TestBuildWarnsAboutIngressRulesAndAMissingCapability(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml": "name: warn\nmanifests: [app.yaml]\npods:\n  - name: caller\n    language: c\n    source: pods/caller\n",
		"pods/caller/main.c": `#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    uint8_t resp[64];
    uint32_t n;
    int32_t rc = k32_http_call("GET", 3, "http://api/", 11, 0, 0, 0, 0, resp, sizeof resp, &n, 1000);
    return rc < 0 ? rc : k32_respond(200, "text/plain", K32_STR("called\n"));
}
`,
		"app.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: caller}\nspec:\n  containers: [{name: caller, image: wasm://embedded/caller}]\n---\n" +
			strings.Replace(ingressPolicy, "NAME", "web", 1),
	})
	code, out := testserve.Run(t, "build", dir)
	for _, want := range []string{
		"warning: app.yaml: document 2 (NetworkPolicy default/web): " + ingressWarning + "\n",
		"warning: pod caller imports k32_http_call but no Pod running wasm://embedded/caller adds capability SERVICE_CALL (securityContext.capabilities.add): its calls will return K32_ERR_PERM\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("build: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
}
