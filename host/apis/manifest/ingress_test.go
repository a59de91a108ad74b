package manifest

import (
	"strings"
	"testing"
)

// ingressWith is an Ingress document whose single rule is body.
func ingressWith(body string) string {
	return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n" + body
}

const svcBackend = "{service: {name: web, port: {number: 80}}}"

// Ingress objects are validated on apply as kube-apiserver validates them,
// each rejection naming the field.
func TestIngressValidation(t *testing.T) {
	cases := []struct {
		rule, spec string
		want       []string // "" = valid
	}{
		{"a Prefix path to a Service by port number is valid",
			"  rules: [{http: {paths: [{path: /api, pathType: Prefix, backend: " + svcBackend + "}]}}]", nil},
		{"a StaticBundle resource backend is valid",
			"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {resource: {apiGroup: kube32.io, kind: StaticBundle, name: site}}}]}}]", nil},
		{"a wildcard host of one label is valid",
			"  rules: [{host: '*.example.com', http: {paths: [{path: /, pathType: Exact, backend: " + svcBackend + "}]}}]", nil},
		{"a defaultBackend alone is valid", "  defaultBackend: " + svcBackend, nil},
		{"pathType is required",
			"  rules: [{http: {paths: [{path: /api, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].http.paths[0].pathType", "Required value", "pathType must be specified"}},
		{"pathType is one of Exact, Prefix, ImplementationSpecific",
			"  rules: [{http: {paths: [{path: /api, pathType: Regex, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].http.paths[0].pathType", "Unsupported value", `"Regex"`}},
		{"an Exact or Prefix path is absolute",
			"  rules: [{http: {paths: [{path: api, pathType: Prefix, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].http.paths[0].path", "must be an absolute path"}},
		{"an Exact or Prefix path holds no //, /./, /../ or encoded slash",
			"  rules: [{http: {paths: [{path: /a//b, pathType: Exact, backend: " + svcBackend + "}, {path: /a%2Fb, pathType: Prefix, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].http.paths[0].path", "must not contain '//'", "spec.rules[0].http.paths[1].path", "must not contain '%2F'"}},
		{"an Exact or Prefix path does not end with /. or /..",
			"  rules: [{http: {paths: [{path: /a/.., pathType: Prefix, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].http.paths[0].path", "cannot end with '/..'"}},
		{"a backend is not both a service and a resource",
			"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}, resource: {kind: StaticBundle, name: s}}}]}}]",
			[]string{"spec.rules[0].http.paths[0].backend", "cannot set both service and resource backends"}},
		{"a backend is a service or a resource",
			"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {}}]}}]",
			[]string{"spec.rules[0].http.paths[0].backend", "one backend type must be specified"}},
		{"a service backend has a name",
			"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {port: {number: 80}}}}]}}]",
			[]string{"spec.rules[0].http.paths[0].backend.service.name", "Required value"}},
		{"a service backend names exactly one of port name and number (both)",
			"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http, number: 80}}}}]}}]",
			[]string{"spec.rules[0].http.paths[0].backend.service.port", "cannot set both port name & port number"}},
		{"a service backend names exactly one of port name and number (neither)",
			"  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {}}}}]}}]",
			[]string{"spec.rules[0].http.paths[0].backend.service.port", "port name or number is required"}},
		{"a rule host is not an IP address",
			"  rules: [{host: 192.168.4.1, http: {paths: [{path: /, pathType: Prefix, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].host", "must be a DNS name, not an IP address"}},
		{"a wildcard host is *. followed by a DNS name",
			"  rules: [{host: 'shop.*.example.com', http: {paths: [{path: /, pathType: Prefix, backend: " + svcBackend + "}]}}]",
			[]string{"spec.rules[0].host", "wildcard"}},
		{"an Ingress has rules or a defaultBackend", "  rules: []", []string{"spec", "either `defaultBackend` or `rules` must be specified"}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			_, err := Decode("ingress.yaml", []byte(ingressWith(c.spec)))
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("rejected a valid Ingress: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted an invalid Ingress")
			}
			for _, w := range append([]string{"ingress.yaml: document 1 (Ingress default/web)"}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
