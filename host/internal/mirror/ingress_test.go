package mirror

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An Ingress is kube32's when it names the class kube32, in
// spec.ingressClassName or else in the older annotation, or names none
// while kube32 is the default class, as Kubernetes assigns classes
// (docs/kubernetes-install.md, "kube32 ingress").
func TestIngressOfClassKube32OrOfNoneWhenDefault(t *testing.T) {
	name := func(s string) *string { return &s }
	for _, c := range []struct {
		what         string
		class        *string
		annotation   string // "" for none
		defaultClass bool
		want         bool
	}{
		{"names kube32", name("kube32"), "", false, true},
		{"names another class", name("nginx"), "", true, false},
		{"names another class, annotation kube32", name("nginx"), "kube32", true, false},
		{"names none, kube32 not default", nil, "", false, false},
		{"names none, kube32 default", nil, "", true, true},
		{"annotation kube32", nil, "kube32", false, true},
		{"annotation of another class, kube32 default", nil, "nginx", true, false},
	} {
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}}
		ing.Spec.IngressClassName = c.class
		if c.annotation != "" {
			ing.Annotations = map[string]string{annotationIngressClass: c.annotation}
		}
		if got := ours(ing, c.defaultClass); got != c.want {
			t.Errorf("%s: ours = %v, want %v", c.what, got, c.want)
		}
	}
}
