// Package kubelet runs the pods bound to one node: it starts each Pod's
// module under host/internal/pod, writes the pod's status back, serves the node's pod
// HTTP server (abi.HeaderPod dispatch), hands in-process handlers to the
// ingress controller and carries out the pods' k32_http_call (host/internal/outbound,
// the node's edge).
// The control plane's kubelet works on the object store; a worker's reaches
// the control plane only through the API server (see Source).
package kubelet

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/call"
	"github.com/kube32/kube32/host/internal/channel"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/oci"
)

// Config describes one node.
type Config struct {
	NodeName     string
	NodeIP       string
	PodPort      int
	ControlPlane bool
	// Source is how the kubelet reaches the cluster's objects; nil means
	// StoreSource(Store).
	Source Source
	// Policy is the node's NetworkPolicy check, built once per node over
	// its Source (outbound.NewPolicy): every call of the node's pods goes
	// through it. Required: New fails without it.
	Policy *outbound.Policy
	// Store is the control plane's object store, used when Source is nil.
	Store  *store.Store
	Images fs.FS // holds the firmware/ and sd/ image trees
	// Pull pulls and keeps the OCI images of the node's pods (docs/oci.md);
	// nil: a Puller that keeps them in memory only.
	Pull  *oci.Puller
	Cache wazero.CompilationCache
	// HandlerTimeout bounds one k32_handle callback; 0 means host/internal/pod's default.
	HandlerTimeout time.Duration
	// DefaultMemoryLimit caps the memory of a container without
	// resources.limits.memory, in bytes; 0 means pod.DefaultMemoryLimit.
	DefaultMemoryLimit int64
	// LeaseRenewInterval is how often the node renews its Lease; 0 means
	// abi.NodeLeaseRenewInterval.
	LeaseRenewInterval time.Duration
	// Board, when set (serve --board), is the board this node stands for:
	// the Node reports its memory as capacity and allocatable (node.go),
	// the node refuses a pod whose memory limit its pods' heap cannot hold
	// (heap.go), and the pods' in-process calls are bounded by its
	// interpreter stack. nil: no budgets.
	Board *abi.Board
	// BoardClock runs the node's callbacks on the board's clock (serve
	// --board-clock): one at a time, each for at least its board time.
	BoardClock bool
	// SlowCallback is the board time past which a callback is logged as
	// slow; 0 means abi.SlowCallbackDefault.
	SlowCallback time.Duration
	// Unmetered runs the node's pods without counting their work: no
	// board time, no Server-Timing, no --board-clock. No command sets it;
	// bench/boardtime does, to measure what counting costs.
	Unmetered bool
	// APIHost and APIPort are given to pods as KUBERNETES_SERVICE_HOST/_PORT.
	APIHost string
	APIPort int
	// Log receives each pod log line.
	Log func(namespace, name string, line pod.Line)

	// Outside calls hosts outside the cluster; nil means an
	// outbound.Outside with the control plane's head limit. Its Policy is
	// always Policy.
	Outside *outbound.Outside
	// Remote calls pods on other nodes; nil means over nodehop.Shared, the
	// process's connections to the nodes, which the Ingress shares.
	Remote *call.Remote
	// HTTPS carries the pods' https:// calls: the control plane's
	// outbound.TLS, a worker's outbound.Egress; nil answers K32_ERR_NOTSUP.
	HTTPS outbound.HTTPS
	// Channels is the node's channel hub: it carries out k32_publish and
	// feeds the pods' abi.AnnotationEventTopics; nil answers K32_ERR_NOTSUP.
	Channels *channel.Hub
	// Activity receives the result of every k32_http_call of the node's
	// pods; nil: none.
	Activity *activity.Stream

	// Kubernetes, when set, makes this a node of a Kubernetes cluster
	// (docs/kubernetes.md): its Node carries abi.TaintWasm and gives its
	// pod port in abi.AnnotationPodPort, its kubelet endpoint is the
	// kubelet API's port, and it runs only kube32 pods (IsKube32Pod).
	Kubernetes *KubernetesNode
}

// KubernetesNode is what a node of a Kubernetes cluster adds to Config.
type KubernetesNode struct {
	// KubeletPort is the port of the node's kubelet API (HTTPS), which
	// kube-apiserver calls for logs, port-forward and metrics.
	KubeletPort int
	// Hostname, when set, is the Node's Hostname address beside its
	// InternalIP (NodeHostname): kube-apiserver reaches the kubelet API
	// at it first.
	Hostname string
}

// Kubelet runs the pods of one node.
type Kubelet struct {
	cfg Config
	// timing is the board time of the node's pods (pod.Timing).
	timing *pod.Timing

	mu sync.Mutex
	// ctx is Run's, for the runtimes that ImagesChanged starts.
	ctx  context.Context
	pods map[store.Key]*running
	// terminating are the deleted pods being stopped before the kubelet
	// removes them from the store.
	terminating map[store.Key]bool

	logs   logFollowers
	events recorder

	// caller carries out k32_http_call for every pod of the node
	// (outbound.Caller, its calls recorded on the activity stream,
	// netpol.go); Config.Policy logs the connections it refuses.
	caller pod.Caller
	// puller is Config.Pull, or one of the kubelet's own (pull.go).
	puller *oci.Puller
	// subscriptions feed the pods' k32_event (channels.go).
	subscriptions podSubscriptions
	// cpuHistory windows the pods' CPU for the Metrics API (stats.go).
	cpuHistory cpuHistory
}

// running is one started pod and the generation of its spec that it runs.
type running struct {
	pod        *pod.Pod
	spec       *corev1.Pod // the Pod as it was started
	generation int64
	uid        string
	// module and assets are what the runtime was given, which
	// ImagesChanged compares with the image trees (swap.go).
	module []byte
	assets *liveAssets
	// image is the pulled OCI image the module is of, held so that the
	// node's Puller keeps it in memory for the node's other pods of the
	// reference, and lets it go with the last of them; nil for others.
	image *oci.Image
	// replaced is set once ImagesChanged has started another runtime in
	// this one's place: its last statuses, as it stops, are not the pod's.
	replaced atomic.Bool
	// log is the pod's log: rate-limited, kept for kubectl logs.
	log *podLog
	// failed is the final status of a pod that never reached the runtime
	// (its image could not be resolved); nil for a pod given to it.
	// A pod waiting for its OCI image has one too, replaced as its pull
	// fails and retries (pull.go).
	failed atomic.Pointer[pod.Status]
}

// status is the pod's runtime status, or the status it failed with before
// it got a runtime.
func (r *running) status() pod.Status {
	if failed := r.failed.Load(); failed != nil {
		return *failed
	}
	return r.pod.Status()
}

// New returns a kubelet for cfg; Run starts it. A node without a Source
// or a Policy does not start: it could not tell which calls its pods'
// NetworkPolicies allow.
func New(cfg Config) (*Kubelet, error) {
	k := &Kubelet{cfg: cfg, pods: map[store.Key]*running{}, terminating: map[store.Key]bool{}, puller: cfg.Pull}
	slow := cfg.SlowCallback
	if slow == 0 {
		slow = abi.SlowCallbackDefault
	}
	if !cfg.Unmetered {
		k.timing = pod.NewTiming(abi.TimeBoard(cfg.Board), cfg.Board != nil, cfg.BoardClock, slow)
	}
	if k.puller == nil {
		k.puller = &oci.Puller{}
	}
	if cfg.Source == nil && cfg.Store != nil {
		k.cfg.Source = StoreSource(cfg.Store)
	}
	switch {
	case k.cfg.Source == nil:
		return nil, fmt.Errorf("kubelet: node %s: no Source (Config.Source or Config.Store): %w", cfg.NodeName, outbound.ErrNoPolicySource)
	case cfg.Policy == nil:
		return nil, fmt.Errorf("kubelet: node %s: no NetworkPolicy check (Config.Policy, outbound.NewPolicy over its Source): %w", cfg.NodeName, outbound.ErrNoPolicySource)
	}
	k.caller = &callRecorder{k: k, caller: &outbound.Caller{Outside: k.outside(), HTTPS: cfg.HTTPS, Services: &call.Cluster{
		Node: cfg.NodeName, Objects: k.cfg.Source, Local: k, Remote: cfg.Remote, Policy: cfg.Policy, Board: cfg.Board,
	}}}
	return k, nil
}

// Run registers the node, renews its Lease (lease.go) and keeps the
// node's pods in sync with its Source until ctx ends, then stops them all.
func (k *Kubelet) Run(ctx context.Context) {
	changes := k.cfg.Source.Changes(ctx, k.cfg.NodeName)
	k.mu.Lock()
	k.ctx = ctx
	k.mu.Unlock()
	k.register(ctx)
	go k.heartbeat(ctx)
	k.sync(ctx)
	for {
		select {
		case <-ctx.Done():
			k.stopAll()
			return
		case <-changes:
			k.sync(ctx)
		}
	}
}

// sync starts the pods bound to this node that are not running, restarts
// those whose spec changed, stops those that are gone and finishes the
// deletion of terminating ones once they stopped.
func (k *Kubelet) sync(ctx context.Context) {
	want := map[store.Key]*corev1.Pod{}
	var deleted []*corev1.Pod
	for _, p := range k.cfg.Source.Pods(k.cfg.NodeName) {
		switch {
		case p.DeletionTimestamp == nil:
			want[store.KeyOf(p)] = p
		default:
			deleted = append(deleted, p)
		}
	}
	// Before any pod starts: a worker loads its namespace's NetworkPolicies.
	k.syncPolicies(ctx, want)
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range deleted {
		key := store.KeyOf(p)
		if k.terminating[key] {
			continue
		}
		k.terminating[key] = true
		r := k.pods[key]
		delete(k.pods, key)
		go k.finishDeletion(p, r)
	}
	for key, r := range k.pods {
		p, ok := want[key]
		if !ok || string(p.UID) != r.uid || p.Generation != r.generation {
			go r.pod.Stop()
			k.forget(r.uid, r.generation)
			delete(k.pods, key)
		}
	}
	// In the order they were created, so that on a full node the newest
	// pods are the ones refused (heap.go).
	for _, p := range byCreation(want) {
		if key := store.KeyOf(p); k.pods[key] == nil {
			k.pods[key] = k.start(ctx, p, 0)
		}
	}
	k.syncSubscriptions(want)
}

// finishDeletion stops a terminating pod's runtime, if it has one, then
// removes the Pod from the store: the end of "terminating → gone".
func (k *Kubelet) finishDeletion(p *corev1.Pod, r *running) {
	key := store.KeyOf(p)
	if r != nil {
		k.event(p, corev1.EventTypeNormal, "Killing", fmt.Sprintf("Stopping container %s", p.Spec.Containers[0].Name))
		r.pod.Stop()
		k.forget(r.uid, r.generation)
	}
	_ = k.cfg.Source.DeletePod(context.Background(), p.Namespace, p.Name, p.UID)
	k.mu.Lock()
	delete(k.terminating, key)
	k.mu.Unlock()
}

// errReplaced: the Pod in the store is no longer the one being deleted.
var errReplaced = errors.New("pod replaced meanwhile")

// start launches p's module in the background, its restart count starting
// at restarts; its status flows to the store.
func (k *Kubelet) start(ctx context.Context, p *corev1.Pod, restarts int32) *running {
	return k.startAfter(ctx, p, restarts, nil)
}

// startAfter is start for a runtime that replaces others (swap.go): last
// is how the last of their containers ended, the status's lastState.
func (k *Kubelet) startAfter(ctx context.Context, p *corev1.Pod, restarts int32, last *pod.Termination) *running {
	key := store.KeyOf(p)
	r := &running{spec: p, generation: p.Generation, uid: string(p.UID), log: newPodLog(k, key)}
	cfg, problem := k.podConfig(p, r)
	if problem == nil {
		problem = k.admitRuntimeClass(p)
	}
	if problem == nil {
		problem = k.admitMemory(p, key)
	}
	cfg.RestartCount, cfg.LastTermination = restarts, last
	r.module = cfg.Module
	if cfg.Assets != nil {
		r.assets = newLiveAssets(cfg.Assets)
		cfg.Assets = r.assets
	}
	// Status callbacks may race each other; always write the latest status.
	cfg.OnStatus = func(pod.Status) {
		if r.replaced.Load() {
			return
		}
		k.writeStatus(key, p.UID, p.Generation, r.pod.Status)
		k.observe(p, r.pod.Status())
	}
	r.pod = pod.New(cfg)
	switch {
	case problem == errNotPulled:
		// Pulled in the background; started again once pulled (pull.go).
		r.failed.Store(&pod.Status{Phase: pod.PhasePending, Reason: reasonPulling})
		k.writeStatus(key, p.UID, p.Generation, r.status)
		go k.pullLoop(ctx, p, r, nil)
		return r
	case problem != nil && problem.reason == reasonErrImagePull:
		// Waited for, as a kubelet waits for an image it cannot pull
		// (pull.go): the pod never fails for its image.
		k.waiting(p, r, reasonErrImagePull, problem.message)
		go k.pullLoop(ctx, p, r, errors.New(problem.message))
		return r
	}
	if problem != nil {
		// The pod has failed for good: Settled must count it as settled.
		failed := &pod.Status{Phase: pod.PhaseFailed, Reason: problem.reason, Message: problem.message, Started: true}
		r.failed.Store(failed)
		k.writeStatus(key, p.UID, p.Generation, r.status)
		k.observe(p, *failed)
		return r
	}
	go func() {
		// Start reports failures through OnStatus; the error adds nothing here.
		_ = r.pod.Start(ctx)
	}()
	return r
}

// writeStatus copies a pod's runtime status into the stored Pod, unless the
// Pod was replaced meanwhile: deleted and created again (a new uid) or
// changed (a new generation, which runs in a new runtime). Without the
// generation check the old runtime, stopping after a spec change, would
// overwrite the new runtime's status with its own "not ready". The status
// is read as it is written (status()), so that racing writes all write
// the latest.
func (k *Kubelet) writeStatus(key store.Key, uid types.UID, generation int64, status func() pod.Status) {
	_ = k.cfg.Source.UpdatePodStatus(context.Background(), key.Namespace, key.Name, uid, generation, func(p *corev1.Pod) {
		applyStatus(p, status(), k.cfg.NodeIP)
		k.pulledImageID(p)
	})
}

// Caller is what carries out k32_http_call for the pods of this node
// (benchmarks call it directly).
func (k *Kubelet) Caller() pod.Caller { return k.caller }

// Handler returns the in-process handler of a pod running on this node. It
// reads a request's whole body before the pod takes its callback slot
// (httplimit.ReadBody), on every path to the pod: the Ingress, the pod
// port and the calls of this node's pods.
func (k *Kubelet) Handler(namespace, name string) (http.Handler, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, ok := k.pods[store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name}]
	if !ok || r.failed.Load() != nil {
		return nil, false
	}
	return httplimit.ReadBody(r.pod), true
}

// Pod returns the runtime of a pod on this node, for logs.
func (k *Kubelet) Pod(namespace, name string) (*pod.Pod, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, ok := k.pods[store.Key{Kind: kinds.Pod, Namespace: namespace, Name: name}]
	if !ok {
		return nil, false
	}
	return r.pod, true
}

// Settled reports whether every pod bound to this node has started or
// failed for good, which /readyz waits for.
func (k *Kubelet) Settled() bool {
	if !k.cfg.Source.Synced() {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.cfg.Source.Pods(k.cfg.NodeName) {
		if p.DeletionTimestamp != nil {
			continue
		}
		r, ok := k.pods[store.KeyOf(p)]
		if !ok || r.uid != string(p.UID) || r.generation != p.Generation {
			return false
		}
		// Started, and the store already says so (the status write may lag).
		if st := r.status(); !st.Started || string(p.Status.Phase) != st.Phase {
			return false
		}
	}
	return true
}

func (k *Kubelet) stopAll() {
	k.closeSubscriptions()
	k.mu.Lock()
	pods := k.pods
	k.pods = map[store.Key]*running{}
	k.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range pods {
		wg.Add(1)
		go func(p *pod.Pod) { defer wg.Done(); p.Stop() }(r.pod)
	}
	wg.Wait()
}

// problem is why a pod cannot start before its module is even looked at.
type problem struct{ reason, message string }

func (p *problem) Error() string { return fmt.Sprintf("%s: %s", p.reason, p.message) }
