package ingress_test

import (
	"testing"
)

// matchCases checks docs/ingress.md, "Matching a request".
var matchCases = []e2eCase{
	{
		name:     "Host is lowercased and its port stripped",
		rule:     "The Host header is lowercased and its port stripped",
		manifest: ing("hosts", rule("shop.e2e.test", toPod("Prefix", "/", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			for _, host := range []string{"shop.e2e.test", "SHOP.E2E.Test", "Shop.e2e.test:8080", "shop.e2e.test:80"} {
				e.wantPod(t, host, "/", "alpha-1")
			}
			e.want404(t, "shop.e2e.test.other", "/")
		},
	},
	{
		name: "three host groups: exact, single-label wildcard, no host",
		rule: "Rules fall in three host groups: an exact host, a single-label wildcard (*.example.com matches a.example.com, not a.b.example.com nor example.com), and rules without a host",
		manifest: ing("groups",
			rule("exact.e2e.test", toPod("Prefix", "/g", "alpha-1")),
			rule("*.e2e.test", toPod("Prefix", "/g", "alpha-2")),
			rule("", toPod("Prefix", "/g", "beta-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "exact.e2e.test", "/g", "alpha-1")
			e.wantPod(t, "other.e2e.test", "/g", "alpha-2")
			e.wantPod(t, "two.labels.e2e.test", "/g", "beta-1") // a single label only
			e.wantPod(t, "e2e.test", "/g", "beta-1")            // the wildcard needs a label
			e.wantPod(t, "unrelated.test", "/g", "beta-1")
		},
	},
	{
		name: "only the most specific host group with rules is consulted",
		rule: "Only the most specific host group whose hosts match the request is consulted",
		manifest: ing("specific",
			rule("exact.e2e.test", toPod("Prefix", "/only-here", "alpha-1")),
			rule("*.e2e.test", toPod("Prefix", "/wild", "alpha-2")),
			rule("", toPod("Prefix", "/", "beta-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "exact.e2e.test", "/only-here", "alpha-1")
			// The exact group has rules for this host: its paths do not
			// match, and the request does not fall through.
			e.want404(t, "exact.e2e.test", "/wild")
			e.want404(t, "exact.e2e.test", "/elsewhere")
			e.want404(t, "other.e2e.test", "/elsewhere")
			e.wantPod(t, "unrelated.test", "/elsewhere", "beta-1")
		},
	},
	{
		name:     "Exact matches byte for byte",
		rule:     "Exact matches byte for byte",
		manifest: ing("exact", rule("", toPod("Exact", "/Exact/Path", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/Exact/Path", "alpha-1")
			e.want404(t, "", "/Exact/Path/", "/exact/path", "/Exact/Path/x", "/Exact/Pat", "/Exact/Path%20")
		},
	},
	{
		name: "Prefix and ImplementationSpecific match whole segments, ignoring the rule's trailing slash",
		rule: "Prefix and ImplementationSpecific match by path segments, ignoring a trailing slash on the rule: /api matches /api and /api/x, not /apix",
		manifest: ing("prefix", rule("",
			toPod("Prefix", "/api/", "alpha-1"),
			toPod("ImplementationSpecific", "/impl", "alpha-2"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPodAt(t, "", "alpha-1", "/api", "/api/", "/api/x", "/api/x/y")
			e.wantPodAt(t, "", "alpha-2", "/impl", "/impl/", "/impl/x")
			e.want404(t, "", "/apix", "/ap", "/implx", "/API")
		},
	},
	{
		name: "the longest matching path wins",
		rule: "The longest matching path wins",
		manifest: ing("longest", rule("",
			toPod("Prefix", "/long", "alpha-1"),
			toPod("Prefix", "/long/er", "alpha-2"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/long/er", "alpha-2")
			e.wantPod(t, "", "/long/er/x", "alpha-2")
			e.wantPod(t, "", "/long/x", "alpha-1")
			e.wantPod(t, "", "/long/erx", "alpha-1")
		},
	},
	{
		name: "Exact wins ties over Prefix",
		rule: "Exact wins a tie over Prefix",
		manifest: ing("tie", rule("",
			toPod("Prefix", "/tie", "alpha-1"),
			toPod("Exact", "/tie", "alpha-2"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/tie", "alpha-2")
			e.wantPod(t, "", "/tie/x", "alpha-1")
		},
	},
	{
		name: "the same host, path and pathType in two Ingresses: the first in namespace/name order wins",
		rule: "When two Ingresses define the same host, path and pathType, the first in namespace/name order wins",
		// dup-b comes first in the manifest, dup-a first by name.
		manifest: ing("dup-b", rule("", toPod("Prefix", "/dup", "alpha-2"))) + ing("dup-a", rule("", toPod("Prefix", "/dup", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			for range 3 {
				e.wantPod(t, "", "/dup/x", "alpha-1")
			}
		},
	},
	{
		name: "unmatched requests go to spec.defaultBackend",
		rule: "An unmatched request goes to spec.defaultBackend if an Ingress sets one",
		manifest: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: fallback}
spec:
  defaultBackend: {service: {name: beta-1, port: {number: 80}}}
  rules: [` + rule("", toPod("Prefix", "/routed", "alpha-1")) + `]
`,
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/routed", "alpha-1")
			e.wantPod(t, "", "/anything/else", "beta-1")
			e.wantPod(t, "any.host.test", "/", "beta-1")
		},
	},
	{
		name:     "unmatched requests without a defaultBackend get 404 JSON",
		rule:     "An unmatched request without a spec.defaultBackend gets 404 with a JSON body",
		manifest: ing("no-fallback", rule("", toPod("Prefix", "/routed", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/routed", "alpha-1")
			e.want404(t, "", "/unrouted")
			e.want404(t, "", "/")
		},
	},
}
