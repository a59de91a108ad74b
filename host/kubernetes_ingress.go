package host

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/ingress"
	"github.com/kube32/kube32/host/internal/mirror"
	"github.com/kube32/kube32/host/internal/store"
)

// KubernetesIngressOptions configure StartKubernetesIngress.
type KubernetesIngressOptions struct {
	REST   *rest.Config // the Kubernetes cluster
	IP     string       // listens there and publishes it in the Ingresses' status
	Port   int          // 0 picks a free port
	Images fs.FS        // holds firmware/images/web/<bundle>/ of the StaticBundles
	// ImageCache keeps the StaticBundles pulled for a spec.image, as
	// serve's Ingress does (docs/oci.md); "": in memory only.
	ImageCache string
	// MaxConnections bounds the open connections (0: httplimit's default).
	MaxConnections int
	Logf           func(format string, args ...any)
}

// KubernetesIngress is the kube32 Ingress controller of a Kubernetes
// cluster: the controller of serve, fed by a mirror of the cluster.
type KubernetesIngress struct {
	mirror *mirror.Mirror
	addr   string
	server *httplimit.FastServer
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// StartKubernetesIngress starts routing the cluster's Ingresses of class
// kube32 on IP:Port; it answers 503 until it has listed the cluster's
// objects (Synced). ctx's StartHooks get it first.
func StartKubernetesIngress(ctx context.Context, opts KubernetesIngressOptions) (*KubernetesIngress, error) {
	if opts.REST == nil || opts.IP == "" {
		return nil, errors.New("kube32 ingress: a cluster and an IP are required")
	}
	s := store.New()
	m, err := mirror.New(mirror.Config{REST: opts.REST, Store: s, Logf: opts.Logf})
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(opts.IP, strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, err
	}
	c := ingress.New(ingress.Config{Store: s, Local: noLocalPods{}, Images: opts.Images, IP: opts.IP, Log: opts.Logf,
		Pull: puller(opts.ImageCache), PublishStatus: m.PublishStatus})
	ctx, cancel := context.WithCancel(ctx)
	// On fasthttp, as serve's Ingress (docs/design.md, "Which server serves
	// which port").
	ki := &KubernetesIngress{mirror: m, addr: l.Addr().String(), cancel: cancel,
		server: httplimit.NewConns(opts.MaxConnections).NewFastServer(m.Gate(c), httplimit.Limits{}, ctx)}
	ki.wg.Go(func() { m.Run(ctx) })
	ki.wg.Go(func() { c.Run(ctx) })
	ki.wg.Go(func() { _ = ki.server.Serve(l) })
	if hook := startHooks(ctx).KubernetesIngress; hook != nil {
		hook(ki)
	}
	return ki, nil
}

// URL is the base URL the controller serves, http://IP:PORT.
func (k *KubernetesIngress) URL() string { return "http://" + k.addr }

// Synced reports whether the cluster's objects were listed once: the
// controller routes from then on.
func (k *KubernetesIngress) Synced() bool { return k.mirror.Synced() }

// Close stops serving and watching.
func (k *KubernetesIngress) Close() error {
	k.cancel() // ends the event streams, which Shutdown would wait for
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := k.server.Shutdown(ctx)
	k.wg.Wait()
	return err
}

// noLocalPods: no pod runs in the process of `kube32 ingress`; every
// Service backend is proxied to its kube32 node.
type noLocalPods struct{}

func (noLocalPods) Handler(string, string) (http.Handler, bool) { return nil, false }
