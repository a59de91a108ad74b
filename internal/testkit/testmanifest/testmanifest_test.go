package testmanifest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The documents are YAML of the real kinds, each field where Kubernetes
// reads it (strict: no field it does not know).
func TestDocumentsAreTheObjectsTheySay(t *testing.T) {
	docs := strings.Split(Docs(
		PinnedPod("shop/api", "apiimage", `{node-role.kubernetes.io/control-plane: ""}`, "env: [{name: A, value: b}]", "resources:\n  limits: {memory: 64Ki}"),
		Service("shop/api"),
		Bundle("shop/site", "127.0.0.1:5000/web/site:v1"),
		AnnotatedIngress("shop/web", map[string]string{"kube32.io/event-stream": `/events="x"`},
			Path("/api", ToService("api")), Path("/", ToBundle("site"))),
	), "---\n")
	if len(docs) != 4 {
		t.Fatalf("%d documents, want 4", len(docs))
	}

	var pod corev1.Pod
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &pod); err != nil {
		t.Fatalf("pod: %v\n%s", err, docs[0])
	}
	c := pod.Spec.Containers
	if pod.Kind != "Pod" || pod.Namespace != "shop" || pod.Name != "api" || pod.Labels["app"] != "api" || len(c) != 1 ||
		len(pod.Spec.NodeSelector) != 1 || pod.Spec.NodeSelector["node-role.kubernetes.io/control-plane"] != "" ||
		c[0].Name != "api" || c[0].Image != "wasm://embedded/apiimage" || len(c[0].Ports) != 1 ||
		c[0].Ports[0].ContainerPort != 7000 || c[0].Ports[0].Name != "http" ||
		len(c[0].Env) != 1 || c[0].Env[0].Value != "b" || c[0].Resources.Limits.Memory().String() != "64Ki" {
		t.Errorf("pod %+v\nfrom\n%s", pod, docs[0])
	}

	var svc corev1.Service
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &svc); err != nil {
		t.Fatalf("service: %v\n%s", err, docs[1])
	}
	p := svc.Spec.Ports
	if svc.Kind != "Service" || svc.Namespace != "shop" || svc.Name != "api" || svc.Spec.Selector["app"] != "api" || len(p) != 1 ||
		p[0].Name != "http" || p[0].Port != 80 || p[0].TargetPort.String() != "http" {
		t.Errorf("service %+v\nfrom\n%s", svc, docs[1])
	}

	var bundle struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			Image string `json:"image"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &bundle); err != nil {
		t.Fatalf("bundle: %v\n%s", err, docs[2])
	}
	if bundle.APIVersion != "kube32.io/v1" || bundle.Kind != "StaticBundle" || bundle.Namespace != "shop" || bundle.Name != "site" ||
		bundle.Spec.Image != "127.0.0.1:5000/web/site:v1" {
		t.Errorf("bundle %+v\nfrom\n%s", bundle, docs[2])
	}
	var hosted networkingv1.Ingress
	if err := yaml.UnmarshalStrict([]byte(HostIngress("site", "kube32", "site.example", Path("/", ToBundle("site")))), &hosted); err != nil {
		t.Fatal(err)
	}
	if r := hosted.Spec.Rules; hosted.Spec.IngressClassName == nil || *hosted.Spec.IngressClassName != "kube32" ||
		len(r) != 1 || r[0].Host != "site.example" || r[0].HTTP == nil || len(r[0].HTTP.Paths) != 1 {
		t.Errorf("ingress of a class and a host: %+v", hosted)
	}
	if doc := Ingress("site", Path("/", ToBundle("site"))); strings.Contains(doc, "host") || strings.Contains(doc, "ingressClassName") {
		t.Errorf("an Ingress of no class and no host has either:\n%s", doc)
	}
	if doc := Pod("api", "api"); strings.Contains(doc, "nodeSelector") {
		t.Errorf("an unpinned pod has a nodeSelector:\n%s", doc)
	}
	if doc := Bundle("site", ""); strings.Contains(doc, "spec") {
		t.Errorf("a bundle without an image has a spec:\n%s", doc)
	}

	var ing networkingv1.Ingress
	if err := yaml.UnmarshalStrict([]byte(docs[3]), &ing); err != nil {
		t.Fatalf("ingress: %v\n%s", err, docs[3])
	}
	if ing.Kind != "Ingress" || ing.Namespace != "shop" || ing.Name != "web" || ing.Annotations["kube32.io/event-stream"] != `/events="x"` ||
		len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].HTTP == nil || len(ing.Spec.Rules[0].HTTP.Paths) != 2 {
		t.Fatalf("ingress %+v\nfrom\n%s", ing, docs[3])
	}
	toAPI, toSite := ing.Spec.Rules[0].HTTP.Paths[0], ing.Spec.Rules[0].HTTP.Paths[1]
	if toAPI.Path != "/api" || *toAPI.PathType != networkingv1.PathTypePrefix || toAPI.Backend.Service == nil ||
		toAPI.Backend.Service.Name != "api" || toAPI.Backend.Service.Port.Name != "http" {
		t.Errorf("path /api: %+v", toAPI)
	}
	if r := toSite.Backend.Resource; toSite.Path != "/" || r == nil || *r.APIGroup != "kube32.io" || r.Kind != "StaticBundle" || r.Name != "site" {
		t.Errorf("path /: %+v", toSite)
	}
}
