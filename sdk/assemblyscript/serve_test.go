package assdk_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testasc"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// project is an app of three AssemblyScript pods: caller calls the Service
// pong, which a NetworkPolicy lets it reach, and the Service secret, which
// it does not; pong also traps on /boom with an assertion.
var project = map[string]string{
	"kube32.yaml": `name: calls
manifests: [app.yaml]
pods:
  - name: caller
    language: assemblyscript
    source: pods/caller
  - name: pong
    language: assemblyscript
    source: pods/pong
`,
	"pods/caller/main.ts": `import { Request, Response, serve, get, Call } from "k32";

function handle(req: Request, res: Response): void {
  const a = req.path == "/denied" ? get("http://secret/x") : new Call("GET", "http://pong" + req.path).header("X-Request-Id", "caller").send();
  res.send(200, "text/plain", a.errorName + " " + a.status.toString() + " " + a.text() + " " + orDash(a.header("X-Pong")));
}

function orDash(s: string | null): string {
  return s == null ? "-" : s;
}

export function k32_handle(): i32 {
  return serve(handle);
}
`,
	"pods/pong/main.ts": `import { Request, Response, serve, info } from "k32";

let served: i32 = 0;

function handle(req: Request, res: Response): void {
  served++;
  if (req.path.endsWith("/boom")) {
    assert(req.path.length == 0, "pong was asked to fail");
  }
  // Garbage on every request, about 5 KiB in a 64 KiB pod: the stub runtime
  // frees nothing within a callback.
  let s = "";
  for (let i = 0; i < 16; i++) s += "0123456789abcdef";
  res.header("X-Pong", "yes");
  res.send(200, "text/plain", "pong " + req.path + " from " + orAsk(req.header("X-Request-Id")) + " #" + served.toString() + " " + s.length.toString());
  info("answered " + req.path);
}

function orAsk(s: string | null): string {
  return s == null ? "?" : s;
}

export function k32_handle(): i32 {
  return serve(handle);
}
`,
	"app.yaml": testmanifest.Docs(
		testmanifest.Pod("caller", "caller", podLimit, "securityContext: {capabilities: {add: [SERVICE_CALL]}}"),
		testmanifest.Pod("pong", "pong", podLimit),
		testmanifest.Pod("secret", "pong", podLimit),
		testmanifest.Service("caller"), testmanifest.Service("pong"), testmanifest.Service("secret"),
		testmanifest.Ingress("calls", testmanifest.Path("/", testmanifest.ToService("caller")), testmanifest.Path("/pong", testmanifest.ToService("pong")))) + `---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: caller-egress
spec:
  podSelector:
    matchLabels:
      app: caller
  policyTypes: [Egress]
  egress:
    - to:
        - podSelector:
            matchLabels:
              app: pong
`,
}

// podLimit is the memory limit of the project's pods.
const podLimit = "resources: {limits: {memory: 64Ki}}"

// serveProject builds the project with the real asc and serves it.
func serveProject(t *testing.T) (ingress string, out *testserve.Output) {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, project)
	testasc.Link(t, filepath.Join(dir, "pods", "caller"))
	testasc.Link(t, filepath.Join(dir, "pods", "pong"))
	if code, out := testserve.Run(t, "build", dir); code != 0 {
		t.Fatalf("build: exit %d:\n%s", code, out)
	}
	c, o := testserve.Serve(t, dir)
	return c.IngressURL(), o
}

// Issue 32: an AssemblyScript pod calls a second pod through the SDK's
// Call (a header the call passes on, the answer's status, body and headers), and the call
// to a pod its NetworkPolicy does not allow fails with K32_ERR_PERM
// (docs/networkpolicy.md: egress is denied unless a rule allows it).
// A trap (a failed assertion) is logged with its file and line, then a
// fresh instance answers; and a pod of one 64 KiB page answers hundreds of
// requests that allocate, as what each callback allocates is freed.
func TestCallsNetworkPolicyTrapsAndMemory(t *testing.T) {
	ingress, out := serveProject(t)

	r := testhttp.Get(t, ingress+"/hello")
	if want := " 200 pong /hello from caller #1 256 yes"; r.Status != 200 || r.Body != want {
		t.Errorf("GET /hello through caller = %s, want 200 %q", r, want)
	}
	r = testhttp.Get(t, ingress+"/denied")
	if want := "K32_ERR_PERM 0  -"; r.Status != 200 || r.Body != want {
		t.Errorf("GET /denied through caller = %s, want 200 %q (the NetworkPolicy refuses the call)", r, want)
	}

	r = testhttp.Get(t, ingress+"/pong/boom")
	if r.Status < 500 {
		t.Errorf("GET /pong/boom = %s, want a 5xx for a trapped pod", r)
	}
	// The assertion is at line 8, column 5 of the pod's file.
	testenv.Eventually(t, "the abort's log line", func() bool {
		return strings.Contains(out.String(), "abort: pong was asked to fail at pods/pong/main.ts:8:5")
	})
	r = testhttp.Get(t, ingress+"/pong/after")
	if !strings.HasPrefix(r.Body, "pong /pong/after from ? #1 ") {
		t.Errorf("GET /pong/after = %s, want the answer of a fresh instance (#1: its globals start again)", r)
	}

	for i := 2; i <= 300; i++ {
		r = testhttp.Get(t, ingress+"/pong/n")
		if want := "pong /pong/n from ? #" + strconv.Itoa(i) + " 256"; r.Status != 200 || r.Body != want {
			t.Fatalf("request %d = %s, want 200 %q: what callbacks allocate must be freed", i, r, want)
		}
	}
}
