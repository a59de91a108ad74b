//lint:file-ignore SA1019 the kubelet reads core/v1 Endpoints, as the boards serve them (docs/kubectl.md)

package kubelet

import (
	"context"
	"reflect"
	"time"

	"github.com/kube32/kube32/host/internal/kinds"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// apiClient is a worker's client of the API server, for the kinds kube32
// serves only (kinds.Scheme): client-go's REST client per group
// version, sharing one HTTP client and one rate limiter, with typed
// resources that make the requests client-go's typed clients make
// (protobuf first, the same paths and parameters). client-go's full
// clientset would link all of Kubernetes' API groups into the binary.
type apiClient struct {
	core, coordination, networking *rest.RESTClient
}

var (
	apiCodecs         = serializer.NewCodecFactory(kinds.Scheme)
	apiParameterCodec = runtime.NewParameterCodec(kinds.Scheme)
)

func newAPIClient(cfg *rest.Config) (*apiClient, error) {
	shared := *cfg
	if shared.UserAgent == "" {
		shared.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	if shared.RateLimiter == nil && shared.QPS > 0 {
		shared.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(shared.QPS, shared.Burst)
	}
	httpClient, err := rest.HTTPClientFor(&shared)
	if err != nil {
		return nil, err
	}
	forGroupVersion := func(gv schema.GroupVersion) (*rest.RESTClient, error) {
		c := shared
		c.GroupVersion = &gv
		c.APIPath = "/apis"
		if gv.Group == "" {
			c.APIPath = "/api"
		}
		c.NegotiatedSerializer = apiCodecs.WithoutConversion()
		return rest.RESTClientForConfigAndClient(&c, httpClient)
	}
	c := &apiClient{}
	for _, g := range []struct {
		client **rest.RESTClient
		gv     schema.GroupVersion
	}{
		{&c.core, corev1.SchemeGroupVersion},
		{&c.coordination, coordinationv1.SchemeGroupVersion},
		{&c.networking, networkingv1.SchemeGroupVersion},
	} {
		if *g.client, err = forGroupVersion(g.gv); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *apiClient) nodes() apiResource[*corev1.Node, *corev1.NodeList] {
	return apiResource[*corev1.Node, *corev1.NodeList]{c.core, "nodes", ""}
}

func (c *apiClient) namespaces() apiResource[*corev1.Namespace, *corev1.NamespaceList] {
	return apiResource[*corev1.Namespace, *corev1.NamespaceList]{c.core, "namespaces", ""}
}

func (c *apiClient) pods(namespace string) apiResource[*corev1.Pod, *corev1.PodList] {
	return apiResource[*corev1.Pod, *corev1.PodList]{c.core, "pods", namespace}
}

func (c *apiClient) events(namespace string) apiResource[*corev1.Event, *corev1.EventList] {
	return apiResource[*corev1.Event, *corev1.EventList]{c.core, "events", namespace}
}

func (c *apiClient) services(namespace string) apiResource[*corev1.Service, *corev1.ServiceList] {
	return apiResource[*corev1.Service, *corev1.ServiceList]{c.core, "services", namespace}
}

func (c *apiClient) endpoints(namespace string) apiResource[*corev1.Endpoints, *corev1.EndpointsList] {
	return apiResource[*corev1.Endpoints, *corev1.EndpointsList]{c.core, "endpoints", namespace}
}

func (c *apiClient) leases(namespace string) apiResource[*coordinationv1.Lease, *coordinationv1.LeaseList] {
	return apiResource[*coordinationv1.Lease, *coordinationv1.LeaseList]{c.coordination, "leases", namespace}
}

// apiResource is a resource of one group version, in a namespace or across
// all ("" for cluster-scoped kinds and lists of every namespace), whose
// objects are T and lists L.
type apiResource[T apiObject, L runtime.Object] struct {
	client    *rest.RESTClient
	name      string
	namespace string
}

// apiObject is an object of a kind: a T of apiResource.
type apiObject interface {
	runtime.Object
	metav1.Object
}

// newOf is a new empty object of the pointer type O (a T or an L), for a
// response to decode into.
func newOf[O runtime.Object]() O {
	var zero O
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(O)
}

func (r apiResource[T, L]) request(verb string) *rest.Request {
	return r.client.Verb(verb).UseProtobufAsDefault().
		NamespaceIfScoped(r.namespace, r.namespace != "").
		Resource(r.name)
}

func (r apiResource[T, L]) Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error) {
	out := newOf[T]()
	err := r.request("GET").Name(name).VersionedParams(&opts, apiParameterCodec).Do(ctx).Into(out)
	return out, err
}

func (r apiResource[T, L]) List(ctx context.Context, opts metav1.ListOptions) (L, error) {
	out := newOf[L]()
	err := r.request("GET").VersionedParams(&opts, apiParameterCodec).Timeout(timeoutOf(opts)).Do(ctx).Into(out)
	return out, err
}

// Watch watches the resource from opts.ResourceVersion: the events end
// when the server ends the watch, and a resourceVersion too old for the
// server arrives as an ERROR event holding its 410 Status.
func (r apiResource[T, L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return r.request("GET").VersionedParams(&opts, apiParameterCodec).Timeout(timeoutOf(opts)).Watch(ctx)
}

func (r apiResource[T, L]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	out := newOf[T]()
	err := r.request("POST").VersionedParams(&opts, apiParameterCodec).Body(obj).Do(ctx).Into(out)
	return out, err
}

func (r apiResource[T, L]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return r.put(ctx, obj, opts, "")
}

func (r apiResource[T, L]) UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	return r.put(ctx, obj, opts, "status")
}

func (r apiResource[T, L]) put(ctx context.Context, obj T, opts metav1.UpdateOptions, subresource string) (T, error) {
	req := r.request("PUT").Name(obj.GetName())
	if subresource != "" {
		req = req.SubResource(subresource)
	}
	out := newOf[T]()
	err := req.VersionedParams(&opts, apiParameterCodec).Body(obj).Do(ctx).Into(out)
	return out, err
}

func (r apiResource[T, L]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.request("DELETE").Name(name).Body(&opts).Do(ctx).Error()
}

// timeoutOf is the request timeout a list or watch asks for, as
// client-go's typed clients take it: none when TimeoutSeconds is unset.
func timeoutOf(opts metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds == nil {
		return 0
	}
	return time.Duration(*opts.TimeoutSeconds) * time.Second
}
