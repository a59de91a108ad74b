package ingress

import (
	"encoding/json"
	"net/http"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/store"
)

// request is one request of a routing case and the pod that must answer it
// ("" for the 404 of an unmatched request).
type request struct {
	host, path string
	want       string
}

func TestHostAndPathMatching(t *testing.T) {
	for _, tc := range []struct {
		name      string // the rule of docs/ingress.md the case checks
		ingresses []*networkingv1.Ingress
		requests  []request
	}{{
		name: "The Host header is lowercased and its port stripped",
		ingresses: []*networkingv1.Ingress{ingress("default", "shop", nil,
			rule("shop.example.com", toService(prefix, "/", "shop")),
			rule("Mixed.Example.COM", toService(prefix, "/", "mixed")))},
		requests: []request{
			{"shop.example.com", "/", "default/shop"},
			{"mixed.example.com", "/", "default/mixed"}, // the rule's host is compared in lowercase too
			{"SHOP.Example.COM", "/", "default/shop"},
			{"shop.example.com:8080", "/cart", "default/shop"},
			{"Shop.Example.Com:80", "/", "default/shop"},
			{"blog.example.com", "/", ""},
		},
	}, {
		name: "Rules fall in three host groups: an exact host, a single-label wildcard, and rules without a host",
		ingresses: []*networkingv1.Ingress{
			ingress("default", "a-any", nil, rule("", toService(prefix, "/", "any"))),
			ingress("default", "b-wild", nil, rule("*.example.com", toService(prefix, "/", "wild"))),
			ingress("default", "c-exact", nil, rule("shop.example.com", toService(prefix, "/", "exact"))),
		},
		requests: []request{
			{"shop.example.com", "/x", "default/exact"},
			{"blog.example.com", "/x", "default/wild"},
			{"a.b.example.com", "/x", "default/any"}, // two labels: not the wildcard
			{"example.com", "/x", "default/any"},
			{"other.test", "/x", "default/any"},
			{"127.0.0.1:80", "/x", "default/any"},
		},
	}, {
		name: "Only the most specific host group whose hosts match the request is consulted",
		ingresses: []*networkingv1.Ingress{
			ingress("default", "a-any", nil, rule("", toService(prefix, "/", "any"))),
			ingress("default", "b-wild", nil, rule("*.example.com", toService(prefix, "/wild", "wild"))),
			ingress("default", "c-exact", nil, rule("shop.example.com", toService(exact, "/api", "exact"))),
		},
		requests: []request{
			{"shop.example.com", "/api", "default/exact"},
			// The exact host has rules, so neither the wildcard nor the
			// host-less rules are consulted for it.
			{"shop.example.com", "/wild", ""},
			{"shop.example.com", "/", ""},
			{"blog.example.com", "/wild/x", "default/wild"},
			{"blog.example.com", "/", ""},
			{"other.test", "/", "default/any"},
		},
	}, {
		name: "Exact matches byte for byte",
		ingresses: []*networkingv1.Ingress{ingress("default", "e", nil,
			rule("", toService(exact, "/api", "exact")))},
		requests: []request{
			{"", "/api", "default/exact"},
			{"", "/api/", ""},
			{"", "/api/x", ""},
			{"", "/API", ""},
			{"", "/apix", ""},
		},
	}, {
		name: "Prefix and ImplementationSpecific match by path segments, ignoring a trailing slash on the rule: /api matches /api and /api/x, not /apix",
		ingresses: []*networkingv1.Ingress{ingress("default", "p", nil, rule("",
			toService(prefix, "/api", "api"),
			toService(prefix, "/slash/", "slash"),
			toService(implSpec, "/impl", "impl")))},
		requests: []request{
			{"", "/api", "default/api"},
			{"", "/api/x", "default/api"},
			{"", "/api/", "default/api"},
			{"", "/apix", ""},
			{"", "/slash", "default/slash"},
			{"", "/slash/x", "default/slash"},
			{"", "/slashx", ""},
			{"", "/impl", "default/impl"},
			{"", "/impl/x", "default/impl"},
			{"", "/implx", ""},
		},
	}, {
		name: "The longest matching path wins",
		ingresses: []*networkingv1.Ingress{
			// The longest rule comes first in namespace/name order, the
			// shortest last: order must not decide.
			ingress("default", "a", nil, rule("", toService(prefix, "/api/v1", "v1"))),
			ingress("default", "b", nil, rule("", toService(prefix, "/", "root"), toService(prefix, "/api", "api"))),
		},
		requests: []request{
			{"", "/api/v1/users", "default/v1"},
			{"", "/api/v1", "default/v1"},
			{"", "/api/v2", "default/api"},
			{"", "/api", "default/api"},
			{"", "/", "default/root"},
			{"", "/other", "default/root"},
		},
	}, {
		name: "Exact wins a tie over Prefix",
		ingresses: []*networkingv1.Ingress{
			// The Prefix rules come first in namespace/name order.
			ingress("default", "a-prefix", nil, rule("", toService(prefix, "/api", "prefix"), toService(prefix, "/v/", "prefixslash"))),
			ingress("default", "b-exact", nil, rule("", toService(exact, "/api", "exact"), toService(exact, "/v", "exactv"))),
		},
		requests: []request{
			{"", "/api", "default/exact"},
			{"", "/api/x", "default/prefix"},
			{"", "/v", "default/exactv"}, // "/v/" ignoring its trailing slash ties with "/v"
			{"", "/v/x", "default/prefixslash"},
		},
	}, {
		name: "When two Ingresses define the same host, path and pathType, the first in namespace/name order wins",
		ingresses: []*networkingv1.Ingress{
			// Applied in reverse order: the store's order must not decide.
			ingress("default", "zz", nil, rule("shop.example.com", toService(prefix, "/", "second"))),
			ingress("default", "aa", nil, rule("shop.example.com", toService(prefix, "/", "first"))),
		},
		requests: []request{{"shop.example.com", "/", "default/first"}},
	}, {
		name: "When two Ingresses define the same host, path and pathType, the first in namespace/name order wins (across namespaces)",
		ingresses: []*networkingv1.Ingress{
			ingress("beta", "aa", nil, rule("", toService(exact, "/x", "second"))),
			ingress("alpha", "zz", nil, rule("", toService(exact, "/x", "first"))),
		},
		requests: []request{{"", "/x", "alpha/first"}},
	}, {
		name: "Ingresses with spec.ingressClassName unset or kube32 are routed; others are ignored",
		ingresses: []*networkingv1.Ingress{
			ingress("default", "unset", nil, rule("", toService(prefix, "/unset", "unset"))),
			ingress("default", "kube32", ptr("kube32"), rule("", toService(prefix, "/kube32", "kube32"))),
			ingress("default", "nginx", ptr("nginx"), rule("", toService(prefix, "/nginx", "nginx"), toService(prefix, "/", "nginx"))),
		},
		requests: []request{
			{"", "/unset", "default/unset"},
			{"", "/kube32", "default/kube32"},
			{"", "/nginx", ""},
			{"", "/", ""},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			seen := map[string]bool{}
			for _, ing := range tc.ingresses {
				objs = append(objs, ing)
				for _, r := range ing.Spec.Rules {
					for _, p := range r.HTTP.Paths {
						id := ing.Namespace + "/" + p.Backend.Service.Name
						if !seen[id] {
							seen[id] = true
							objs = append(objs, backends(ing.Namespace, p.Backend.Service.Name)...)
						}
					}
				}
			}
			e := start(t, objs...)
			for _, rq := range tc.requests {
				got := e.get(t, rq.host, rq.path)
				if rq.want == "" {
					if got.Status != http.StatusNotFound {
						t.Errorf("Host %q, path %q: status %d (%q), want 404", rq.host, rq.path, got.Status, got.Body)
					}
					continue
				}
				if got.Status != http.StatusOK || got.Body != "pod "+rq.want {
					t.Errorf("Host %q, path %q: %d %q, want pod %s", rq.host, rq.path, got.Status, got.Body, rq.want)
				}
			}
		})
	}
}

func TestUnmatchedRequestsGoToTheDefaultBackend(t *testing.T) {
	// "Unmatched requests go to spec.defaultBackend if configured"
	withDefault := ingress("default", "site", nil, rule("", toService(prefix, "/api", "api")))
	fallback := serviceBackendRef("fallback", 80, "")
	withDefault.Spec.DefaultBackend = &fallback
	objs := append([]runtime.Object{withDefault}, backends("default", "api", "fallback")...)
	e := start(t, objs...)
	for path, want := range map[string]string{"/api/x": "pod default/api", "/other": "pod default/fallback", "/": "pod default/fallback"} {
		if got := e.get(t, "", path); got.Status != http.StatusOK || got.Body != want {
			t.Errorf("GET %s: %d %q, want %q", path, got.Status, got.Body, want)
		}
	}
}

func TestUnmatchedRequestsReturn404JSON(t *testing.T) {
	// "Unmatched requests go to spec.defaultBackend if configured, or return 404 JSON."
	objs := append([]runtime.Object{ingress("default", "site", nil, rule("shop.example.com", toService(prefix, "/api", "api")))},
		backends("default", "api")...)
	e := start(t, objs...)
	for _, rq := range []struct{ host, path string }{{"shop.example.com", "/nope"}, {"other.test", "/api"}, {"", "/"}} {
		got := e.get(t, rq.host, rq.path)
		if got.Status != http.StatusNotFound {
			t.Fatalf("Host %q %s: status %d, want 404", rq.host, rq.path, got.Status)
		}
		if ct := got.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Host %q %s: Content-Type %q, want application/json", rq.host, rq.path, ct)
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(got.Body), &body); err != nil {
			t.Errorf("Host %q %s: body %q is not JSON: %v", rq.host, rq.path, got.Body, err)
		}
		if body["path"] != rq.path {
			t.Errorf("Host %q %s: body %q does not name the path", rq.host, rq.path, got.Body)
		}
	}
}

func TestControllerWritesItsAddressToIngressStatus(t *testing.T) {
	// "The controller writes its IP address to status.loadBalancer.ingress[0].ip"
	// (for the Ingresses it routes; it ignores other classes).
	e := start(t,
		ingress("default", "routed", nil, rule("", toService(prefix, "/", "x"))),
		ingress("default", "routed-kube32", ptr("kube32"), rule("", toService(prefix, "/k", "x"))),
		ingress("default", "ignored", ptr("traefik"), rule("", toService(prefix, "/t", "x"))))
	for name, want := range map[string]string{"routed": controllerIP, "routed-kube32": controllerIP, "ignored": ""} {
		o, ok := e.store.Get(store.Key{Kind: "Ingress", Namespace: "default", Name: name})
		if !ok {
			t.Fatalf("Ingress %s is gone", name)
		}
		lb := o.(*networkingv1.Ingress).Status.LoadBalancer.Ingress
		got := ""
		if len(lb) > 0 {
			got = lb[0].IP
		}
		if got != want {
			t.Errorf("Ingress %s: status.loadBalancer.ingress %+v, want ip %q", name, lb, want)
		}
	}
}

func TestTableFollowsStoreChanges(t *testing.T) {
	// "It rebuilds the routing table when an Ingress, Service, or Pod changes
	// in the store, at most once every 250 ms on the request path and on a 1 s tick."
	e := start(t)
	if got := e.get(t, "", "/late"); got.Status != http.StatusNotFound {
		t.Fatalf("before the Ingress: %d %q, want 404", got.Status, got.Body)
	}
	for _, o := range append([]runtime.Object{ingress("default", "late", nil, rule("", toService(prefix, "/late", "late")))},
		backends("default", "late")...) {
		e.store.Apply(o)
	}
	// Poll: the rebuild is rate-limited, not instant.
	got := pollUntil(t, func() (reply, bool) {
		r := e.get(t, "", "/late")
		return r, r.Status == http.StatusOK
	})
	if got.Body != "pod default/late" {
		t.Fatalf("after the Ingress: %d %q", got.Status, got.Body)
	}
	e.store.Delete(store.Key{Kind: "Ingress", Namespace: "default", Name: "late"})
	pollUntil(t, func() (reply, bool) {
		r := e.get(t, "", "/late")
		return r, r.Status == http.StatusNotFound
	})
}
