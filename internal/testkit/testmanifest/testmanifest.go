// Package testmanifest writes the Kubernetes objects that tests' projects
// and clusters apply, as YAML documents, for the shapes that recur: a Pod
// serving HTTP on port 7000, the Service in front of it, a StaticBundle
// and an Ingress that routes path prefixes to Services and StaticBundles.
// What a test checks stays in its own YAML; these are the objects around
// it.
package testmanifest

import (
	"maps"
	"slices"
	"strings"
)

// Docs joins YAML documents into one file.
func Docs(docs ...string) string {
	return strings.Join(docs, "---\n")
}

// Pod is a Pod labelled app: <its name>, whose one container, named as
// the Pod, runs wasm://embedded/<image> and serves HTTP on port 7000,
// named http. name is the Pod's name or namespace/name. Each of container
// is YAML of the container, for example "resources: {limits: {memory:
// 64Ki}}", and may span lines.
func Pod(name, image string, container ...string) string {
	return PinnedPod(name, image, "", container...)
}

// PinnedPod is a Pod with spec.nodeSelector nodeSelector, YAML flow such as
// "{kubernetes.io/hostname: kube32-worker-1}" ("" for none).
func PinnedPod(name, image, nodeSelector string, container ...string) string {
	n := nameOf(name)
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\n" + metadata(name, nil) + "  labels: {app: " + n + "}\nspec:\n")
	if nodeSelector != "" {
		b.WriteString("  nodeSelector: " + nodeSelector + "\n")
	}
	b.WriteString("  containers:\n    - name: " + n + "\n      image: wasm://embedded/" + image + "\n")
	b.WriteString("      ports: [{containerPort: 7000, name: http}]\n")
	for _, c := range container {
		for _, line := range strings.Split(strings.TrimSuffix(c, "\n"), "\n") {
			b.WriteString("      " + line + "\n")
		}
	}
	return b.String()
}

// Service is a Service that selects the Pods labelled app: <its name> and
// forwards its port 80, named http, to theirs named http. name is the
// Service's name or namespace/name.
func Service(name string) string {
	return "apiVersion: v1\nkind: Service\n" + metadata(name, nil) +
		"spec:\n  selector: {app: " + nameOf(name) + "}\n  ports: [{name: http, port: 80, targetPort: http}]\n"
}

// Bundle is a StaticBundle; image, when not "", is the reference of the
// OCI artifact its files are pulled from (spec.image). name is its name or
// namespace/name.
func Bundle(name, image string) string {
	doc := "apiVersion: kube32.io/v1\nkind: StaticBundle\n" + metadata(name, nil)
	if image != "" {
		doc += "spec:\n  image: " + quote(image) + "\n"
	}
	return doc
}

// Ingress is an Ingress of one rule with paths, each a Prefix path and its
// backend (Path). name is the Ingress's name or namespace/name.
func Ingress(name string, paths ...string) string {
	return AnnotatedIngress(name, nil, paths...)
}

// AnnotatedIngress is an Ingress with annotations.
func AnnotatedIngress(name string, annotations map[string]string, paths ...string) string {
	return ingress(name, annotations, "", "", paths)
}

// HostIngress is an Ingress of class class ("" for none) whose one rule
// routes the paths of requests for host.
func HostIngress(name, class, host string, paths ...string) string {
	return ingress(name, nil, class, host, paths)
}

// ingress is an Ingress of one rule, with what is not "" or nil.
func ingress(name string, annotations map[string]string, class, host string, paths []string) string {
	var b strings.Builder
	b.WriteString("apiVersion: networking.k8s.io/v1\nkind: Ingress\n" + metadata(name, annotations) + "spec:\n")
	if class != "" {
		b.WriteString("  ingressClassName: " + class + "\n")
	}
	if host != "" {
		b.WriteString("  rules:\n    - host: " + host + "\n      http:\n")
	} else {
		b.WriteString("  rules:\n    - http:\n")
	}
	b.WriteString("        paths:\n")
	for _, p := range paths {
		b.WriteString("          - " + p + "\n")
	}
	return b.String()
}

// Path is a path of an Ingress's rule: requests whose path has prefix go
// to backend (ToService, ToBundle).
func Path(prefix, backend string) string {
	return "{path: " + prefix + ", pathType: Prefix, backend: " + backend + "}"
}

// ToService is the backend of a path to the port named http of the
// Service name.
func ToService(name string) string {
	return "{service: {name: " + name + ", port: {name: http}}}"
}

// ToBundle is the backend of a path to the StaticBundle name.
func ToBundle(name string) string {
	return "{resource: {apiGroup: kube32.io, kind: StaticBundle, name: " + name + "}}"
}

// metadata is an object's metadata: name is its name or namespace/name.
func metadata(name string, annotations map[string]string) string {
	m := "metadata:\n  name: " + nameOf(name) + "\n"
	if ns, _, ok := strings.Cut(name, "/"); ok {
		m += "  namespace: " + ns + "\n"
	}
	if len(annotations) > 0 {
		m += "  annotations:\n"
		for _, k := range slices.Sorted(maps.Keys(annotations)) {
			m += "    " + k + ": " + quote(annotations[k]) + "\n"
		}
	}
	return m
}

// nameOf is the name of name or namespace/name.
func nameOf(name string) string {
	_, n, ok := strings.Cut(name, "/")
	if !ok {
		return name
	}
	return n
}

// quote writes s as a YAML double-quoted string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
