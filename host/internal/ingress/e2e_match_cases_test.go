package ingress_test

import (
	"testing"
)

// matchCases checks the spec's "Host and path matching" section.
var matchCases = []e2eCase{
	{
		name:     "Host is lowercased and its port stripped",
		spec:     "The controller normalizes the Host header to lowercase and strips the port.",
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
		spec: "It evaluates rules in three host groups: Exact host match. Wildcard match, where *.domain matches a single subdomain label. Rules without a host field.",
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
		spec: "The controller consults only the most specific host group that has matching rules.",
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
		spec:     "Exact matches the request path byte for byte.",
		manifest: ing("exact", rule("", toPod("Exact", "/Exact/Path", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/Exact/Path", "alpha-1")
			e.want404(t, "", "/Exact/Path/", "/exact/path", "/Exact/Path/x", "/Exact/Pat", "/Exact/Path%20")
		},
	},
	{
		name: "Prefix and ImplementationSpecific match whole segments, ignoring the rule's trailing slash",
		spec: "Prefix and ImplementationSpecific match path segments and ignore a trailing slash on the rule. /api matches /api and /api/x, but not /apix.",
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
		spec: "The longest matching path wins",
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
		spec: "and Exact wins ties over Prefix.",
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
		spec: "When two Ingresses define the same host, path, and pathType, the first Ingress in namespace/name order wins.",
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
		spec: "Unmatched requests go to spec.defaultBackend if configured",
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
		spec:     "Unmatched requests go to spec.defaultBackend if configured, or return 404 JSON.",
		manifest: ing("no-fallback", rule("", toPod("Prefix", "/routed", "alpha-1"))),
		check: func(t *testing.T, e *e2e) {
			e.wantPod(t, "", "/routed", "alpha-1")
			e.want404(t, "", "/unrouted")
			e.want404(t, "", "/")
		},
	},
}
