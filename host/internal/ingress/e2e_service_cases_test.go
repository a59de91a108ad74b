package ingress_test

import (
	"net/http"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// serviceCases checks docs/ingress.md, "Backends", and the Service rules of
// docs/kubectl.md, "Services, Endpoints and environment variables". Service
// alpha selects alpha-1 and alpha-2; its port 81 has targetPort "web", a
// containerPort only alpha-2 declares (testdata/e2e/pods.yaml).
var serviceCases = []e2eCase{
	{
		name: "service backend by port.number",
		rule: "A service backend names a Service in the Ingress's namespace and its port.number",
		manifest: ing("by-number", rule("",
			toService("Prefix", "/n80", "alpha", "{number: 80}"),
			toService("Prefix", "/n81", "alpha", "{number: 81}"))),
		check: func(t *testing.T, e *e2e) {
			e.pollPods(t, "/n80", "alpha-1", "alpha-2")
			for range 4 {
				e.wantPod(t, "", "/n81", "alpha-2")
			}
		},
	},
	{
		name: "service backend by port.name",
		rule: "A service backend names a Service in the Ingress's namespace and its port.name",
		manifest: ing("by-name", rule("",
			toService("Prefix", "/http", "alpha", "{name: http}"),
			toService("Prefix", "/web", "alpha", "{name: web}"))),
		check: func(t *testing.T, e *e2e) {
			e.pollPods(t, "/http", "alpha-1", "alpha-2")
			for range 4 {
				e.wantPod(t, "", "/web", "alpha-2")
			}
		},
	},
	{
		name:     "targetPort as a number selects every pod",
		rule:     "A Service's targetPort is a number: every selected pod serves it",
		manifest: ing("target-number", rule("", toService("Prefix", "/t", "alpha", "{number: 80}"))),
		check: func(t *testing.T, e *e2e) {
			e.pollPods(t, "/t", "alpha-1", "alpha-2")
		},
	},
	{
		name:     "targetPort as a containerPort name selects the pods that declare it",
		rule:     "A Service's targetPort is a containerPort name: only the pods that declare it serve it",
		manifest: ing("target-name", rule("", toService("Prefix", "/t", "alpha", "{name: web}"))),
		check: func(t *testing.T, e *e2e) {
			for range 4 {
				e.wantPod(t, "", "/t", "alpha-2")
			}
		},
	},
	{
		name:     "targetPort omitted defaults to port",
		rule:     "A Service's targetPort defaults to its port",
		manifest: ing("target-default", rule("", toService("Prefix", "/t", "alpha", "{name: plain}"))),
		check: func(t *testing.T, e *e2e) {
			e.pollPods(t, "/t", "alpha-1", "alpha-2")
		},
	},
	{
		name:     "several pods are balanced round-robin",
		rule:     "The Service's Running pods are called round-robin; a pod on the control plane is called in-process",
		manifest: ing("rr", rule("", toService("Prefix", "/rr", "alpha", "{number: 80}"))),
		check: func(t *testing.T, e *e2e) {
			// A table rebuilt between two requests starts its rotation
			// again, so look for one quiet stretch rather than assume it.
			var last []string
			testenv.Eventually(t, "four requests in a row to alternate between the two pods", func() bool {
				last = last[:0]
				for range 4 {
					last = append(last, podOf(e.get(t, "", "/rr")))
				}
				return last[0] != "" && last[1] != "" && last[0] != last[1] && last[2] == last[0] && last[3] == last[1]
			})
		},
	},
	{
		name:     "no running pod: 503 with Retry-After: 2",
		rule:     "When the Service has no running pod, the answer is 503 with Retry-After: 2",
		manifest: ing("none", rule("", toPod("Prefix", "/none", "nobody"))),
		check: func(t *testing.T, e *e2e) {
			got := e.get(t, "", "/none")
			if got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") != "2" {
				t.Errorf("GET /none: %s Retry-After %q, want 503 with Retry-After: 2", got, got.Header.Get("Retry-After"))
			}
		},
	},
	{
		name:     "the request path reaches the pod unchanged",
		rule:     "The request path reaches the pod unchanged",
		manifest: ing("keep", rule("", toPod("Prefix", "/keep", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			for _, c := range []struct{ method, target, path string }{
				{"GET", "/keep", "/keep"},
				{"GET", "/keep/", "/keep/"},
				{"POST", "/keep/a/b.json?q=1", "/keep/a/b.json"},
				{"PUT", "/keep/Mixed/Case", "/keep/Mixed/Case"},
				{"GET", "/keep/with%20space/and%2Fslash", "/keep/with%20space/and%2Fslash"},
				{"DELETE", "/keep//double", "/keep//double"},
			} {
				got := e.do(t, c.method, "", c.target)
				var w whoami
				if podOf(got) != "alpha-1" || jsonInto(got.Body, &w) != nil || w.Method != c.method || w.Path != c.path {
					t.Errorf("%s %s: %s, want alpha-1 to see %s %s", c.method, c.target, got, c.method, c.path)
				}
			}
		},
	},
}
