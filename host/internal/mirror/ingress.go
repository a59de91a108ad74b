package mirror

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// Annotations of Kubernetes about Ingress classes.
const (
	// annotationIsDefaultClass on an IngressClass makes it the class of
	// Ingresses that name none.
	annotationIsDefaultClass = "ingressclass.kubernetes.io/is-default-class"
	// annotationIngressClass is the class an Ingress named before
	// spec.ingressClassName; controllers still honour it.
	annotationIngressClass = "kubernetes.io/ingress.class"
)

// ours reports whether ing is of class kube32 on the cluster: it names
// the class, or names none while the IngressClass kube32 is the default.
// Only those reach the store, whose controller routes Ingresses of class
// kube32 or none (host/internal/ingress).
func ours(ing *networkingv1.Ingress, defaultClass bool) bool {
	if c := ing.Spec.IngressClassName; c != nil {
		return *c == abi.IngressClassName
	}
	if c, ok := ing.Annotations[annotationIngressClass]; ok {
		return c == abi.IngressClassName
	}
	return defaultClass
}

func (m *Mirror) putIngress(o runtime.Object) {
	ing := o.(*networkingv1.Ingress)
	key := store.KeyOf(ing)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ingresses[key] = ing
	m.syncIngressLocked(key, ing)
}

func (m *Mirror) removeIngress(key store.Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.ingresses, key)
	m.cfg.Store.Delete(key)
}

// syncIngressLocked puts ing in the store when it is ours, and takes it
// out when not (its class changed).
func (m *Mirror) syncIngressLocked(key store.Key, ing *networkingv1.Ingress) {
	if ours(ing, m.defaultClass) {
		m.cfg.Store.Apply(ing)
	} else {
		m.cfg.Store.Delete(key)
	}
}

func (m *Mirror) putIngressClass(o runtime.Object) {
	m.setDefaultClass(o.(*networkingv1.IngressClass).Annotations[annotationIsDefaultClass] == "true")
}

func (m *Mirror) removeIngressClass(store.Key) { m.setDefaultClass(false) }

// setDefaultClass records whether kube32 is the default class and, when
// that changed, sorts every Ingress without a class again.
func (m *Mirror) setDefaultClass(isDefault bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.defaultClass == isDefault {
		return
	}
	m.defaultClass = isDefault
	for key, ing := range m.ingresses {
		m.syncIngressLocked(key, ing)
	}
}

// knownKeys are the keys of the Ingresses, or of the IngressClass, the
// mirror holds.
func (m *Mirror) knownKeys(kind string) []store.Key {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []store.Key
	switch kind {
	case kinds.Ingress:
		for key := range m.ingresses {
			keys = append(keys, key)
		}
	default:
		if m.defaultClass {
			keys = append(keys, store.Key{Kind: kind, Name: abi.IngressClassName})
		}
	}
	return keys
}
