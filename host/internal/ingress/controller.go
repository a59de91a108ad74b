// Package ingress is the Ingress controller: it routes requests on the
// ingress port by networking.k8s.io/v1 Ingress objects to Service backends
// (pods) and StaticBundle resource backends, by the rules of docs/ingress.md
// and docs/bundles.md.
package ingress

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/kinds"
	svcs "github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/static"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/oci"
	"github.com/kube32/kube32/internal/termtext"
)

// Config wires the controller to the cluster.
type Config struct {
	Store *store.Store
	// Node is the node the controller runs on (the control plane): its
	// pods are called in-process through Local, never proxied.
	Node   string
	Local  svcs.LocalPods
	Images fs.FS // holds firmware/images/web/<bundle>/
	IP     string
	// Log receives the controller's log lines.
	Log func(format string, args ...any)
	// Channels is the control plane's channel hub, which feeds the
	// abi.AnnotationEventStream streams and takes abi.AnnotationStatsTopic; nil
	// leaves the streams with their built-in topics only.
	Channels *channel.Hub
	// Activity receives every request the controller answers; nil: none.
	Activity *activity.Stream
	Pull     *oci.Puller // pulls the StaticBundles that have a spec.image (docs/oci.md); nil: none
	// PublishStatus, when set, receives each Ingress whose status the
	// controller just wrote in Store, so that the status reaches the
	// Ingress's origin too (a Kubernetes cluster, host/internal/mirror).
	// It must not block: the controller calls it while building its table.
	PublishStatus func(*networkingv1.Ingress)
}

// Controller is the Ingress controller; it is an http.Handler.
type Controller struct {
	cfg Config

	bundleMu sync.Mutex
	bundles  map[string]*static.Bundle // StaticBundles of the image trees loaded so far, by name
	// images are the pulled StaticBundles the routes refer to (bundleimage.go).
	images bundleImages

	// built is the current table; requests read it without a lock.
	built atomic.Pointer[builtTable]

	// ann keeps the annotations' streams and counters across rebuilds.
	ann annotationState

	// objects are the store's Services, Endpoints and Nodes, which the
	// Service backends resolve from.
	objects svcs.Objects
}

var _ http.Handler = (*Controller)(nil)

// builtTable is a routing table with the store version it was built from
// (-1: rebuild it whatever the version) and when.
type builtTable struct {
	*table
	from int64
	at   time.Time
}

// New returns a controller with a table built from the store as it is.
func New(cfg Config) *Controller {
	c := &Controller{cfg: cfg, objects: svcs.StoreObjects(cfg.Store)}
	c.ann.started = time.Now()
	c.rebuild()
	return c
}

// Run rebuilds a stale table every abi.IngressRebuildTick and publishes
// the stats (abi.StatsInterval, the same period) until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	tick := time.NewTicker(abi.IngressRebuildTick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			c.closeStreams()
			c.images.retain(nil)
			return
		case <-tick.C:
			c.rebuildIfStale(0)
			c.publishStats(ctx)
		}
	}
}

// UpToDate brings the table up to date with the store at once and reports
// whether it is; readiness checks use it, so that a cluster reported ready
// routes to what was applied.
func (c *Controller) UpToDate() bool {
	c.rebuildIfStale(0)
	return c.built.Load().from == c.cfg.Store.Version()
}

func (c *Controller) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w, published := c.record(w, r)
	defer published()
	t := c.rebuildIfStale(abi.IngressRebuildMinInterval)
	if rt := t.lookup(r.Host, r.URL.Path); rt != nil {
		noteRoute(w, rt)
		rt.requests.Add(1)
		rt.backend.ServeHTTP(w, r)
		return
	}
	if t.defaultBackend != nil {
		t.defaultBackend.ServeHTTP(w, r)
		return
	}
	notFound(w, r)
}

// rebuildIfStale rebuilds the table when the store changed since it was
// built and the last rebuild is at least minInterval old, and returns the
// current table.
func (c *Controller) rebuildIfStale(minInterval time.Duration) *table {
	if b := c.built.Load(); b.from == c.cfg.Store.Version() || time.Since(b.at) < minInterval {
		return b.table
	}
	return c.rebuild()
}

// rebuild builds the routing table from the store and publishes the
// controller's IP in each routed Ingress's status.
func (c *Controller) rebuild() *table {
	version := c.cfg.Store.Version()

	t := &table{}
	ings := c.routedIngresses()
	for _, ing := range ings {
		c.addIngress(t, ing)
		c.addAnnotationRoutes(t, ing)
		c.publishAddress(ing)
	}
	for _, rt := range t.routes {
		rt.requests = c.ann.counter(rt.ingress)
	}
	c.retainStreams(ings)
	c.built.Store(&builtTable{table: t, from: version, at: time.Now()})
	c.images.retain(c.built.Load().table)
	return t
}

func (c *Controller) addIngress(t *table, ing *networkingv1.Ingress) {
	id := ing.Namespace + "/" + ing.Name
	if ing.Spec.DefaultBackend != nil && t.defaultBackend == nil {
		t.defaultBackend = c.backend(ing, *ing.Spec.DefaultBackend, "", "")
	}
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			pathType := networkingv1.PathTypePrefix
			if p.PathType != nil {
				pathType = *p.PathType
			}
			strip := ""
			if pathType != networkingv1.PathTypeExact {
				strip = p.Path
			}
			t.routes = append(t.routes, &route{
				host: strings.ToLower(rule.Host), path: p.Path, pathType: pathType, ingress: id,
				backend: c.backend(ing, p.Backend, p.Path, strip),
			})
		}
	}
}

// backend resolves one Ingress backend; a backend that cannot be resolved
// answers 503 and says why.
func (c *Controller) backend(ing *networkingv1.Ingress, b networkingv1.IngressBackend, path, strip string) http.Handler {
	switch {
	case b.Service != nil:
		sb, err := c.resolveServiceBackend(ing.Namespace, b.Service)
		if err != nil {
			c.logf("[INGRESS] %s/%s %s: %v", ing.Namespace, ing.Name, path, err)
		}
		// The whole body is read here, before a pod of either node is
		// called or a worker is proxied to.
		return httplimit.ReadBody(sb)
	case b.Resource != nil && b.Resource.Kind == kinds.StaticBundle && b.Resource.APIGroup != nil && *b.Resource.APIGroup == kube32v1.GroupName:
		if h := c.imageBundle(ing.Namespace, b.Resource.Name, strip); h != nil {
			return h
		}
		files, err := c.bundle(b.Resource.Name)
		if err != nil {
			c.logf("[INGRESS] %s/%s %s: StaticBundle %s: %v", ing.Namespace, ing.Name, path, b.Resource.Name, err)
			return unavailable("StaticBundle " + b.Resource.Name + " is not in the firmware image")
		}
		return &bundleBackend{files: files, strip: strip}
	default:
		return unavailable("unsupported ingress backend")
	}
}

// bundle returns StaticBundle name, loading it on first use.
func (c *Controller) bundle(name string) (*static.Bundle, error) {
	c.bundleMu.Lock()
	defer c.bundleMu.Unlock()
	if files, ok := c.bundles[name]; ok {
		return files, nil
	}
	files, err := loadBundle(c.cfg.Images, name)
	if err != nil {
		return nil, err
	}
	if c.bundles == nil {
		c.bundles = map[string]*static.Bundle{}
	}
	c.bundles[name] = files
	return files, nil
}

func unavailable(why string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusServiceUnavailable, map[string]string{"error": "backend unavailable", "reason": why})
	})
}

// publishAddress writes the controller's IP to status.loadBalancer.ingress[0].ip.
func (c *Controller) publishAddress(ing *networkingv1.Ingress) {
	lb := ing.Status.LoadBalancer.Ingress
	if len(lb) == 1 && lb[0].IP == c.cfg.IP {
		return
	}
	updated, ok := c.cfg.Store.Update(store.KeyOf(ing), func(o runtime.Object) bool {
		o.(*networkingv1.Ingress).Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: c.cfg.IP}}
		return true
	})
	if ok && c.cfg.PublishStatus != nil {
		c.cfg.PublishStatus(updated.(*networkingv1.Ingress))
	}
}

// logf writes one line of the controller's log. Its arguments may quote
// text from outside (a registry's error, a path of an Ingress of the
// cluster), so the line is made safe by termtext.Line: one line, no
// control character, whatever they hold.
func (c *Controller) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		c.cfg.Log("%s", termtext.Line(fmt.Sprintf(format, args...)))
	}
}
