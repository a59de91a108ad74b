// Package mirror keeps a local store.Store in step with a Kubernetes
// cluster, so that the Ingress controller (host/internal/ingress) routes
// the cluster's Ingresses of class kube32 exactly as it routes serve's
// (docs/kubernetes-install.md, "kube32 ingress"). It lists and watches,
// with client-go's reflectors, what the controller reads: Ingresses,
// Services, kube32 pods, Nodes and StaticBundles, and the IngressClass
// kube32 (whether it is the cluster's default). It writes back only the
// Ingresses' status.
package mirror

import (
	"context"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/httperror"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

// Config wires a Mirror.
type Config struct {
	REST  *rest.Config // the cluster's API server and credentials
	Store *store.Store // the local store the controller reads
	Logf  func(format string, args ...any)
}

// Mirror copies the cluster's objects into the local store.
type Mirror struct {
	cfg                           Config
	core, networking, kube32Group *rest.RESTClient

	kinds []*kindStore // one per reflector

	mu           sync.Mutex
	ingresses    map[store.Key]*networkingv1.Ingress // every Ingress of the cluster
	defaultClass bool                                // IngressClass kube32 is the cluster's default

	status statusWriter
}

// New returns a Mirror of the cluster of cfg.REST; Run starts it.
func New(cfg Config) (*Mirror, error) {
	cfg.REST = rest.CopyConfig(cfg.REST)
	if cfg.REST.QPS == 0 { // client-go's default, 5 a second, would queue the status writes of many Ingresses
		cfg.REST.QPS, cfg.REST.Burst = 50, 100
	}
	codecs := serializer.NewCodecFactory(kinds.Scheme).WithoutConversion()
	m := &Mirror{cfg: cfg, ingresses: map[store.Key]*networkingv1.Ingress{}}
	httpClient, err := rest.HTTPClientFor(cfg.REST)
	if err != nil {
		return nil, err
	}
	for _, g := range []struct {
		client   **rest.RESTClient
		gv       schema.GroupVersion
		protobuf bool // custom resources are JSON only
	}{
		{&m.core, corev1.SchemeGroupVersion, true},
		{&m.networking, networkingv1.SchemeGroupVersion, true},
		{&m.kube32Group, kube32v1.SchemeGroupVersion, false},
	} {
		c := rest.CopyConfig(cfg.REST)
		c.GroupVersion = &g.gv
		c.APIPath = "/apis"
		if g.gv.Group == "" {
			c.APIPath = "/api"
		}
		c.NegotiatedSerializer = codecs
		if g.protobuf {
			c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
		}
		if *g.client, err = rest.RESTClientForConfigAndClient(c, httpClient); err != nil {
			return nil, err
		}
	}
	m.status = statusWriter{client: m.networking, logf: m.logf, pending: map[store.Key][]networkingv1.IngressLoadBalancerIngress{}, wake: make(chan struct{}, 1)}
	m.kinds = []*kindStore{
		{m: m, kind: kinds.Ingress, client: m.networking, resource: "ingresses", example: &networkingv1.Ingress{}, put: m.putIngress, remove: m.removeIngress},
		{m: m, kind: "IngressClass", client: m.networking, resource: "ingressclasses", example: &networkingv1.IngressClass{},
			fields: fields.OneTermEqualSelector("metadata.name", abi.IngressClassName), put: m.putIngressClass, remove: m.removeIngressClass},
		{m: m, kind: kinds.Service, client: m.core, resource: "services", example: &corev1.Service{}},
		{m: m, kind: kinds.Pod, client: m.core, resource: "pods", example: &corev1.Pod{}, keep: isKube32Pod},
		{m: m, kind: kinds.Node, client: m.core, resource: "nodes", example: &corev1.Node{}},
		{m: m, kind: kinds.StaticBundle, client: m.kube32Group, resource: kube32v1.StaticBundles, example: &kube32v1.StaticBundle{}},
	}
	return m, nil
}

// Run lists and watches until ctx ends, and writes the Ingresses' status.
func (m *Mirror) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, k := range m.kinds {
		lw := cache.NewListWatchFromClient(k.client, k.resource, "", orEverything(k.fields))
		r := cache.NewReflectorWithOptions(lw, k.example, k, cache.ReflectorOptions{Name: "kube32 ingress " + k.resource})
		wg.Go(func() { r.RunWithContext(ctx) })
	}
	wg.Go(func() { m.status.run(ctx) })
	wg.Wait()
}

// Synced reports whether every kind was listed once: before that the
// store is missing objects and a route could be missing or wrong.
func (m *Mirror) Synced() bool {
	for _, k := range m.kinds {
		if !k.synced.Load() {
			return false
		}
	}
	return true
}

// Gate answers 503 until the mirror is synced and passes requests to h
// after: fail closed rather than route by a partial copy.
func (m *Mirror) Gate(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !m.Synced() {
			w.Header().Set("Retry-After", "1")
			httperror.Write(w, http.StatusServiceUnavailable, map[string]string{"error": "not ready",
				"reason": "the Ingress controller has not listed the cluster's objects yet"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// PublishStatus sends ing's status.loadBalancer, as the controller wrote
// it in the store, to the cluster's Ingress (ingresses/status). It never
// blocks: the controller calls it while building its table.
func (m *Mirror) PublishStatus(ing *networkingv1.Ingress) {
	m.status.queue(store.KeyOf(ing), ing.Status.LoadBalancer.Ingress)
}

func (m *Mirror) logf(format string, args ...any) {
	if m.cfg.Logf != nil {
		m.cfg.Logf(format, args...)
	}
}

func orEverything(s fields.Selector) fields.Selector {
	if s == nil {
		return fields.Everything()
	}
	return s
}

// isKube32Pod keeps the pods of RuntimeClass kube32 only: the controller
// reaches a pod through its kube32 node's pod port, which no other pod
// has. A Service whose pods are all others has no running pod here (503).
func isKube32Pod(o runtime.Object) bool {
	rc := o.(*corev1.Pod).Spec.RuntimeClassName
	return rc != nil && *rc == abi.RuntimeClassName
}

// statusRetry is how long a status write that failed waits before it is
// tried again.
const statusRetry = time.Second
