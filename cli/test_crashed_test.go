package cli_test

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// pod "x" crashed is true once a container of the pod ended in a crash (a
// trap here: lastState.terminated Error) and false before, against the
// real cluster (docs/testing.md).
func TestKube32TestPodCrashedQuery(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := writeProject(t, map[string]string{
		"kube32.yaml": "name: trap\nmanifests: [app.yaml]\npods:\n  - name: trap\n    language: c\n    source: pods/trap\n",
		"app.yaml": strings.ReplaceAll(`apiVersion: v1
kind: Pod
metadata: {name: trap, labels: {app: trap}}
spec:
  containers:
    - {name: trap, image: wasm://embedded/trap, ports: [{containerPort: 7000, name: http}], resources: {limits: {memory: 64Ki}}}
---
apiVersion: v1
kind: Service
metadata: {name: trap}
spec: {selector: {app: trap}, ports: [{name: http, port: 80, targetPort: http}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: trap}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: trap, port: {name: http}}}}]}}]
`, "\t", "  "),
		"pods/trap/main.c": `#include "k32.h"

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    char path[16];
    if (k32_req_path_cstr(path, sizeof path) == 6 && path[1] == 'c') {
        __builtin_trap();
    }
    return k32_respond(200, "text/plain", K32_STR("fine\n"));
}
`,
		"tests/trap.hurl": `GET {{ingress}}/
HTTP 200
[Asserts]
pod "trap" crashed == false

GET {{ingress}}/crash
HTTP 500
[Asserts]
pod "trap" crashed == true
pod "trap" restarts == 1
`,
	})
	if code, out := run(t, "test", dir); code != 0 || !strings.Contains(out, "PASS tests/trap.hurl:1 GET / (board time ") || !strings.Contains(out, "PASS tests/trap.hurl:6 GET /crash (board time ") {
		t.Fatalf("kube32 test: exit %d, want 0 and both entries passing:\n%s", code, out)
	}
}
