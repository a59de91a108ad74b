package ingress_test

import (
	"fmt"
	"strings"
	"testing"
)

// e2eCase is one rule of docs/ingress.md ("Which Ingresses count", "Matching
// a request", "Backends") or docs/bundles.md ("Serving", "A pod's files:
// k32_resp_asset"), checked end to end: manifest is applied to the running
// cluster for the case and deleted after it; check sends real HTTP requests
// to the ingress port, answered by real wasm pods (whoami, which names
// itself) or the StaticBundle. The cases are in e2e_*_cases_test.go, one file
// per section; the cluster in e2e_env_test.go.
type e2eCase struct {
	name     string
	rule     string // the rule the case checks, as docs/ingress.md or docs/bundles.md word it
	manifest string
	check    func(t *testing.T, e *e2e)
}

// TestIngressEndToEnd runs every case on one cluster.
func TestIngressEndToEnd(t *testing.T) {
	e := startE2E(t)
	for _, c := range e2eCases {
		t.Run(c.name, func(t *testing.T) {
			t.Log("checks: " + c.rule)
			if c.manifest != "" {
				e.apply(t, c.manifest)
			}
			c.check(t, e)
		})
	}
}

// Manifest builders, in YAML flow style to keep the cases short.

// ing is an Ingress named name with the given rules.
func ing(name string, rules ...string) string {
	return fmt.Sprintf("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: %s}\nspec: {rules: [%s]}\n---\n",
		name, strings.Join(rules, ", "))
}

// rule is an Ingress rule for host ("" for none) with the given paths.
func rule(host string, paths ...string) string {
	h := ""
	if host != "" {
		h = "host: '" + host + "', "
	}
	return fmt.Sprintf("{%shttp: {paths: [%s]}}", h, strings.Join(paths, ", "))
}

// toPod routes a path to the Service of the same name as the pod, port 80.
func toPod(pathType, path, pod string) string {
	return toService(pathType, path, pod, "{number: 80}")
}

// toService routes a path to a Service port ("{number: 80}", "{name: web}").
func toService(pathType, path, svc, port string) string {
	return fmt.Sprintf("{path: '%s', pathType: %s, backend: {service: {name: %s, port: %s}}}", path, pathType, svc, port)
}

// toBundle routes a path to a StaticBundle.
func toBundle(pathType, path, bundle string) string {
	return fmt.Sprintf("{path: '%s', pathType: %s, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: %s}}}", path, pathType, bundle)
}

// whoamiPod is a whoami pod named name with label app.
func whoamiPod(name, app string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, labels: {app: %s}}
spec:
  containers:
    - name: whoami
      image: wasm://embedded/whoami
      env: [{name: POD_NAME, value: %s}]
      resources: {limits: {memory: 64Ki}}
---
`, name, app, name)
}

// classIngress routes path to alpha-1 with ingressClassName class ("" for
// unset).
func classIngress(name, class, path string) string {
	cls := ""
	if class != "" {
		cls = "ingressClassName: " + class + ", "
	}
	return fmt.Sprintf("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: %s}\nspec: {%srules: [%s]}\n---\n",
		name, cls, rule("", toPod("Prefix", path, "alpha-1")))
}

// e2eCases are all the cases, section by section of the docs.
var e2eCases = concat(controllerCases, matchCases, serviceCases, bundleCases, assetCases)

func concat(lists ...[]e2eCase) []e2eCase {
	var all []e2eCase
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}
