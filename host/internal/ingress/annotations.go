package ingress

import (
	"fmt"
	"net/http"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/channel"
)

// streamSpec is one "<path>=<topic>[,<topic>...]" of abi.AnnotationEventStream.
type streamSpec struct {
	path   string
	topics []string // as written, built-ins included
}

// parseEventStreams reads "<path>=<topic>[,<topic>...][;<path>=...]".
func parseEventStreams(value string) ([]streamSpec, error) {
	var specs []streamSpec
	seen := map[string]bool{}
	for _, item := range strings.Split(value, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		path, list, ok := strings.Cut(item, "=")
		path = strings.TrimSpace(path)
		if !ok || !strings.HasPrefix(path, "/") {
			return nil, fmt.Errorf("%q: want <path>=<topic>[,<topic>...] with an absolute path", item)
		}
		if seen[path] {
			return nil, fmt.Errorf("path %s is listed twice", path)
		}
		seen[path] = true
		topics, err := channel.ParseTopics(list)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", path, err)
		}
		if len(topics) == 0 {
			return nil, fmt.Errorf("path %s: no topic", path)
		}
		specs = append(specs, streamSpec{path: path, topics: topics})
	}
	return specs, nil
}

// annotationHosts are the hosts an annotation's paths are served on: the
// hosts of the Ingress's rules, and every host ("") when a rule has none
// or the Ingress has no rules.
func annotationHosts(ing *networkingv1.Ingress) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, rule := range ing.Spec.Rules {
		h := strings.ToLower(rule.Host)
		if !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		hosts = []string{""}
	}
	return hosts
}

// addAnnotationRoutes adds the Exact routes of an Ingress's event streams
// and telemetry path; a malformed annotation is logged and skipped.
func (c *Controller) addAnnotationRoutes(t *table, ing *networkingv1.Ingress) {
	id := ing.Namespace + "/" + ing.Name
	add := func(path string, h http.Handler) {
		for _, host := range annotationHosts(ing) {
			t.routes = append(t.routes, &route{host: host, path: path, pathType: networkingv1.PathTypeExact, ingress: id, backend: h})
		}
	}
	if v, ok := ing.Annotations[abi.AnnotationEventStream]; ok {
		specs, err := parseEventStreams(v)
		if err != nil {
			c.logf("[INGRESS] %s: %s ignored: %v", id, abi.AnnotationEventStream, err)
		}
		for _, spec := range specs {
			add(spec.path, c.stream(ing, spec))
		}
	}
	if path := strings.TrimSpace(ing.Annotations[abi.AnnotationClusterTelemetry]); path != "" {
		if !strings.HasPrefix(path, "/") {
			c.logf("[INGRESS] %s: %s ignored: %q is not an absolute path", id, abi.AnnotationClusterTelemetry, path)
		} else {
			add(path, telemetryHandler{c})
		}
	}
}
