package ingress_test

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// controllerCases checks docs/ingress.md, "Which Ingresses count": the route
// table follows the store, the class filter and the published address.
var controllerCases = []e2eCase{
	{
		name:     "route table follows Ingress changes",
		rule:     "The controller rebuilds its routing table when an Ingress, Service or Pod changes",
		manifest: ing("moving", rule("", toPod("Prefix", "/v1", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/v1/x", "alpha-1")
			key := store.Key{Kind: "Ingress", Namespace: "default", Name: "moving"}
			e.c.Store.Update(key, func(o runtime.Object) bool {
				o.(*networkingv1.Ingress).Spec.Rules[0].HTTP.Paths[0].Path = "/v2"
				return true
			})
			e.poll(t, "", "/v2/x", "the new path to route", func(r reply) bool { return podOf(r) == "alpha-1" })
			e.want404(t, "", "/v1/x")
			e.c.Store.Delete(key)
			e.poll(t, "", "/v2/x", "the deleted Ingress to stop routing", func(r reply) bool { return r.Status == http.StatusNotFound })
		},
	},
	{
		name: "route table follows Service changes",
		rule: "The controller rebuilds its routing table when an Ingress, Service or Pod changes",
		manifest: ing("switch", rule("", toPod("Prefix", "/switch", "switch"))) + `
apiVersion: v1
kind: Service
metadata: {name: switch}
spec: {selector: {pod: alpha-1}, ports: [{port: 80}]}
`,
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/switch", "alpha-1")
			e.c.Store.Update(store.Key{Kind: "Service", Namespace: "default", Name: "switch"}, func(o runtime.Object) bool {
				o.(*corev1.Service).Spec.Selector = map[string]string{"pod": "beta-1"}
				return true
			})
			e.poll(t, "", "/switch", "the changed selector to route to beta-1", func(r reply) bool { return podOf(r) == "beta-1" })
		},
	},
	{
		name: "route table follows Pod changes",
		rule: "The controller rebuilds its routing table when an Ingress, Service or Pod changes",
		manifest: ing("gamma", rule("", toPod("Prefix", "/gamma", "gamma"))) + `
apiVersion: v1
kind: Service
metadata: {name: gamma}
spec: {selector: {app: gamma}, ports: [{port: 80}]}
---
` + whoamiPod("gamma-1", "gamma"),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/gamma", "gamma-1")
			e.c.Store.Delete(store.Key{Kind: "Pod", Namespace: "default", Name: "gamma-1"})
			e.poll(t, "", "/gamma", "the deleted pod's route to answer 503", func(r reply) bool { return r.Status == http.StatusServiceUnavailable })
			e.applyNoWait(t, whoamiPod("gamma-2", "gamma"))
			e.poll(t, "", "/gamma", "the new pod to answer", func(r reply) bool { return podOf(r) == "gamma-2" })
		},
	},
	{
		name: "ingressClassName unset or kube32 is routed, any other is ignored",
		rule: "Ingresses with spec.ingressClassName unset or kube32 are routed; others are ignored",
		manifest: classIngress("class-other", "nginx", "/other") +
			classIngress("class-kube32", "kube32", "/kube32") +
			classIngress("class-unset", "", "/unset"),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/kube32", "alpha-1")
			e.wantPod(t, "", "/unset", "alpha-1")
			e.want404(t, "", "/other")
		},
	},
	{
		name: "the controller publishes its IP in the Ingress status, without a request",
		rule: "The controller writes its IP to status.loadBalancer.ingress[0].ip, rebuilding on a 1 s tick as well as on the request path",
		check: func(t *testing.T, e *e2e) {
			// No request and no readiness check: only the controller's own
			// tick can pick these up.
			e.applyNoWait(t, classIngress("status-routed", "", "/status")+classIngress("status-ignored", "nginx", "/ignored"))
			routed := store.Key{Kind: "Ingress", Namespace: "default", Name: "status-routed"}
			testenv.Eventually(t, "the IP in status-routed's status", func() bool { return len(lbStatus(t, e, routed)) > 0 })
			if lb := lbStatus(t, e, routed); len(lb) != 1 || lb[0].IP != "127.0.0.1" {
				t.Errorf("status.loadBalancer.ingress = %+v, want [{ip: 127.0.0.1}]", lb)
			}
			if lb := lbStatus(t, e, store.Key{Kind: "Ingress", Namespace: "default", Name: "status-ignored"}); len(lb) != 0 {
				t.Errorf("the ignored Ingress got status.loadBalancer.ingress = %+v, want none", lb)
			}
		},
	},
}
