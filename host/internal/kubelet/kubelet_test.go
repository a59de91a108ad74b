package kubelet

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

const (
	nodeName = "node-1"
	apiHost  = "127.0.0.1"
	apiPort  = 6443
)

// imageTree is a firmware image tree holding modules by image name.
func imageTree(modules map[string][]byte) fs.FS {
	m := fstest.MapFS{}
	for name, wasm := range modules {
		m["firmware/images/wasm/"+name+".wasm"] = &fstest.MapFile{Data: wasm}
	}
	return m
}

// node is a running kubelet over a real store, its pod server on 127.0.0.1.
type node struct {
	store   *store.Store
	kubelet *Kubelet
	podURL  string
	podPort int
}

func startNode(t *testing.T, imgs fs.FS) *node {
	t.Helper()
	return startLoggingNode(t, imgs, nil)
}

// startLoggingNode is startNode with log as the node's Config.Log.
func startLoggingNode(t *testing.T, imgs fs.FS, log func(namespace, name string, line pod.Line)) *node {
	t.Helper()
	return startNodeWith(t, imgs, log, 2*time.Second)
}

// startNodeWith is startLoggingNode with handlerTimeout as the pods'
// callback deadline.
func startNodeWith(t *testing.T, imgs fs.FS, log func(namespace, name string, line pod.Line), handlerTimeout time.Duration) *node {
	t.Helper()
	n := &node{store: store.New()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.kubelet.PodServer().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	n.podURL = srv.URL
	n.podPort, _ = strconv.Atoi(u.Port())
	// No slow-callback lines (docs/boards.md): these tests count the lines
	// the pods write.
	n.kubelet = newKubelet(t, Config{NodeName: nodeName, NodeIP: "127.0.0.1", PodPort: n.podPort, ControlPlane: true,
		Store: n.store, Images: imgs, HandlerTimeout: handlerTimeout, APIHost: apiHost, APIPort: apiPort, Log: log,
		SlowCallback: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.kubelet.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return n
}

func testPod(name, image string, env ...corev1.EnvVar) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{NodeName: nodeName, RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "main", Image: image, Env: env}}},
	}
}

func (n *node) pod(t *testing.T, name string) *corev1.Pod {
	t.Helper()
	o, ok := n.store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
	if !ok {
		t.Fatalf("pod %s is gone", name)
	}
	return o.(*corev1.Pod)
}

func (n *node) waitPhase(t *testing.T, name string, phase corev1.PodPhase) *corev1.Pod {
	t.Helper()
	var p *corev1.Pod
	testenv.Eventually(t, "pod "+name+" "+string(phase), func() bool {
		p = n.pod(t, name)
		return p.Status.Phase == phase
	})
	return p
}

// call sends GET path to the pod server with the X-Kube32-Pod header value
// target ("" for none).
func (n *node) call(t *testing.T, target, path string) (int, string) {
	t.Helper()
	var header []string
	if target != "" {
		header = append(header, headerPod+": "+target)
	}
	r := testhttp.Get(t, n.podURL+path, header...)
	return r.Status, r.Body
}

func TestRunRegistersTheNode(t *testing.T) {
	n := startNode(t, imageTree(nil))
	var node *corev1.Node
	testenv.Eventually(t, "the Node object", func() bool {
		o, ok := n.store.Get(store.Key{Kind: "Node", Name: nodeName})
		if ok {
			node = o.(*corev1.Node)
		}
		return ok
	})
	// "every node ... runs a pod HTTP server on port 7000 and reports that
	// port in status.daemonEndpoints.kubeletEndpoint.Port on its Node object"
	if got := node.Status.DaemonEndpoints.KubeletEndpoint.Port; int(got) != n.podPort {
		t.Errorf("kubeletEndpoint port %d, want the pod port %d", got, n.podPort)
	}
	ip := ""
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			ip = a.Address
		}
	}
	if ip != "127.0.0.1" {
		t.Errorf("InternalIP %q, want 127.0.0.1", ip)
	}
	ready := false
	for _, c := range node.Status.Conditions {
		ready = ready || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	}
	if !ready {
		t.Errorf("conditions %+v, want Ready True", node.Status.Conditions)
	}
	if _, ok := node.Labels[abi.LabelControlPlane]; !ok || node.Labels[labelHostname] != nodeName {
		t.Errorf("labels %v, want the control-plane role and the hostname", node.Labels)
	}
}

func TestEnvironment(t *testing.T) {
	// "Every pod also receives KUBERNETES_SERVICE_HOST and
	// KUBERNETES_SERVICE_PORT for the API server"; a variable the container
	// sets itself wins.
	k := newKubelet(t, Config{NodeName: nodeName, APIHost: "10.0.0.1", APIPort: 6443})
	get := func(env []pod.EnvVar, name string) []string {
		var vals []string
		for _, e := range env {
			if e.Name == name {
				vals = append(vals, e.Value)
			}
		}
		return vals
	}
	plain := testPod("a", "wasm://embedded/a", corev1.EnvVar{Name: "GREETING", Value: "hi"})
	env, _ := k.environment(plain, plain.Spec.Containers[0])
	if env[0] != (pod.EnvVar{Name: "GREETING", Value: "hi"}) {
		t.Errorf("env %v: the container's own variables come first", env)
	}
	for name, want := range map[string]string{"GREETING": "hi", "KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "6443"} {
		if got := get(env, name); len(got) != 1 || got[0] != want {
			t.Errorf("%s = %v, want [%s]", name, got, want)
		}
	}
	// With enableServiceLinks false the API server variables still come.
	plain.Spec.EnableServiceLinks = new(bool)
	env, _ = k.environment(plain, plain.Spec.Containers[0])
	if got := get(env, "KUBERNETES_SERVICE_HOST"); len(got) != 1 {
		t.Errorf("enableServiceLinks: false: KUBERNETES_SERVICE_HOST = %v, want it set", got)
	}
	own := testPod("b", "wasm://embedded/b", corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: "9999"})
	env, _ = k.environment(own, own.Spec.Containers[0])
	if got := get(env, "KUBERNETES_SERVICE_PORT"); len(got) != 1 || got[0] != "9999" {
		t.Errorf("KUBERNETES_SERVICE_PORT = %v, want only the container's [9999]", got)
	}
	if got := get(env, "KUBERNETES_SERVICE_HOST"); len(got) != 1 || got[0] != "10.0.0.1" {
		t.Errorf("KUBERNETES_SERVICE_HOST = %v, want [10.0.0.1]", got)
	}
}

func TestPodServerRejectsBadTargets(t *testing.T) {
	n := startNode(t, imageTree(nil))
	for _, tt := range []struct {
		target string
		want   int
	}{
		{"", http.StatusBadRequest},
		{"echo", http.StatusBadRequest},
		{"default/", http.StatusBadRequest},
		{"/echo", http.StatusBadRequest},
		{"default/echo", http.StatusNotFound},
		{"kube-system/echo", http.StatusNotFound},
	} {
		if status, body := n.call(t, tt.target, "/"); status != tt.want {
			t.Errorf("X-Kube32-Pod %q: %d %q, want %d", tt.target, status, body, tt.want)
		}
	}
}

func TestPodsRunAndAnswerThroughThePodServer(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))
	n.store.Apply(testPod("a", "wasm://embedded/envpod", corev1.EnvVar{Name: "WHO", Value: "a"}))
	n.store.Apply(testPod("b", "wasm://embedded/envpod", corev1.EnvVar{Name: "WHO", Value: "b"},
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: "api.example"}))
	other := testPod("elsewhere", "wasm://embedded/envpod")
	other.Spec.NodeName = "node-2"
	n.store.Apply(other)
	testenv.Eventually(t, "the node's pods to settle", n.kubelet.Settled)

	for _, name := range []string{"a", "b"} {
		p := n.waitPhase(t, name, corev1.PodRunning)
		if c := condition(p, corev1.PodReady); c == nil || c.Status != corev1.ConditionTrue {
			t.Errorf("pod %s: Ready %+v, want True", name, c)
		}
		if p.Status.PodIP != "127.0.0.1" {
			t.Errorf("pod %s: podIP %q, want the node IP", name, p.Status.PodIP)
		}
	}
	if p := n.pod(t, "elsewhere"); p.Status.Phase != "" {
		t.Errorf("a pod bound to another node got status %+v", p.Status)
	}

	status, body := n.call(t, "default/a", "/hello")
	if status != http.StatusOK {
		t.Fatalf("default/a: %d %q", status, body)
	}
	for _, want := range []string{"WHO=a\n", "KUBERNETES_SERVICE_HOST=" + apiHost + "\n", "KUBERNETES_SERVICE_PORT=" + strconv.Itoa(apiPort) + "\n", "path=/hello\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("default/a answered %q, lacking %q", body, want)
		}
	}
	status, body = n.call(t, "default/b", "/")
	if status != http.StatusOK || !strings.Contains(body, "WHO=b\n") || !strings.Contains(body, "KUBERNETES_SERVICE_HOST=api.example\n") {
		t.Errorf("default/b: %d %q, want WHO=b and its own KUBERNETES_SERVICE_HOST", status, body)
	}
	if status, body := n.call(t, "default/elsewhere", "/"); status != http.StatusNotFound {
		t.Errorf("a pod of another node: %d %q, want 404", status, body)
	}

	// A changed spec runs in a new runtime; the old one, stopping, must not
	// overwrite the new one's status.
	n.store.Apply(testPod("a", "wasm://embedded/envpod", corev1.EnvVar{Name: "WHO", Value: "a2"}))
	testenv.Eventually(t, "the changed pod to answer", func() bool {
		_, body := n.call(t, "default/a", "/")
		return strings.Contains(body, "WHO=a2\n")
	})
	testenv.Eventually(t, "the node's pods to settle", n.kubelet.Settled)
	p := n.pod(t, "a")
	if c := condition(p, corev1.PodReady); p.Status.Phase != corev1.PodRunning || c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("after the pod's spec changed: phase %q Ready %+v, want Running and Ready", p.Status.Phase, c)
	}

	// A deleted pod stops answering.
	n.store.Delete(store.Key{Kind: "Pod", Namespace: "default", Name: "b"})
	testenv.Eventually(t, "the deleted pod to be gone", func() bool {
		status, _ := n.call(t, "default/b", "/")
		return status == http.StatusNotFound
	})
}

// watchPhases records every phase and waiting reason the pod name shows
// until the test ends.
func (n *node) watchPhases(t *testing.T, name string) func() []string {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if o, ok := n.store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name}); ok {
				p := o.(*corev1.Pod)
				state := string(p.Status.Phase)
				if cs := p.Status.ContainerStatuses; len(cs) == 1 && cs[0].State.Waiting != nil {
					state += "/" + cs[0].State.Waiting.Reason
				}
				mu.Lock()
				if len(seen) == 0 || seen[len(seen)-1] != state {
					seen = append(seen, state)
				}
				mu.Unlock()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// A pod whose wasm:// module is missing waits for it as a kubelet waits
// for an image it cannot pull: Pending, ErrImagePull then ImagePullBackOff,
// never Failed (a Failed pod makes a ReplicaSet create another, and
// another); settled for /readyz, with no handler. Once the module is in the
// node's image tree, the next attempt starts it.
func TestMissingModuleIsWaitedFor(t *testing.T) {
	dir := t.TempDir()
	n := startNode(t, os.DirFS(dir))
	phases := n.watchPhases(t, "ghost")
	n.store.Apply(testPod("ghost", "wasm://embedded/ghost"))
	testenv.Eventually(t, "ImagePullBackOff", func() bool {
		cs := n.pod(t, "ghost").Status.ContainerStatuses
		return len(cs) == 1 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "ImagePullBackOff"
	})
	p := n.pod(t, "ghost")
	if w := p.Status.ContainerStatuses[0].State.Waiting; p.Status.Phase != corev1.PodPending || !strings.Contains(w.Message, "not found") {
		t.Errorf("phase %s, waiting %+v; want Pending, saying the module was not found", p.Status.Phase, w)
	}
	if got := phases(); !slices.Contains(got, "Pending/ErrImagePull") {
		t.Errorf("the pod showed %v, want ErrImagePull before ImagePullBackOff", got)
	}
	testenv.Eventually(t, "the kubelet to count the waiting pod as settled", n.kubelet.Settled)
	if _, ok := n.kubelet.Handler("default", "ghost"); ok {
		t.Error("a pod without its module has a handler")
	}
	if status, body := n.call(t, "default/ghost", "/"); status != http.StatusNotFound {
		t.Errorf("pod server for the waiting pod: %d %q, want 404", status, body)
	}

	testenv.WriteFiles(t, dir, map[string]string{"firmware/images/wasm/ghost.wasm": string(testpods.Fixture(t, "good", 65536))})
	p = n.waitPhase(t, "ghost", corev1.PodRunning)
	if cs := p.Status.ContainerStatuses[0]; cs.RestartCount != 0 || !cs.Ready {
		t.Errorf("container status %+v, want ready, never restarted", cs)
	}
	if got := phases(); slices.Contains(got, "Failed") {
		t.Errorf("the pod showed %v: it failed", got)
	}
}

// `serve --watch` hands the kubelet the images it rebuilt: a pod waiting
// for one of them starts at once, as a pod that never ran (no restart, no
// Killing event).
func TestImagesChangedStartsAPodWaitingForItsModule(t *testing.T) {
	dir := t.TempDir()
	n := startNode(t, os.DirFS(dir))
	n.store.Apply(testPod("ghost", "wasm://embedded/ghost"))
	testenv.Eventually(t, "ErrImagePull", func() bool {
		cs := n.pod(t, "ghost").Status.ContainerStatuses
		return len(cs) == 1 && cs[0].State.Waiting != nil && cs[0].State.Waiting.Reason == "ErrImagePull"
	})
	testenv.WriteFiles(t, dir, map[string]string{"firmware/images/wasm/ghost.wasm": string(testpods.Fixture(t, "good", 65536))})
	n.kubelet.ImagesChanged([]string{"wasm://embedded/ghost"})
	p := n.waitPhase(t, "ghost", corev1.PodRunning)
	if cs := p.Status.ContainerStatuses[0]; cs.RestartCount != 0 {
		t.Errorf("restart count %d, want 0: the pod never ran before", cs.RestartCount)
	}
	for _, e := range n.store.List("Event", "default") {
		if ev := e.(*corev1.Event); ev.InvolvedObject.Name == "ghost" && ev.Reason == "Killing" {
			t.Errorf("event %s %q: nothing ran to be killed", ev.Reason, ev.Message)
		}
	}
}

func TestModuleOverItsMemoryLimitFailsThePod(t *testing.T) {
	big := testpods.Fixture(t, "bigmem", 131072)
	n := startNode(t, imageTree(map[string][]byte{"bigmem": big}))
	p := testPod("big", "wasm://embedded/bigmem")
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Ki")}
	n.store.Apply(p)
	p = n.waitPhase(t, "big", corev1.PodFailed)
	if p.Status.Reason != pod.ReasonMemoryLimitExceeded {
		t.Errorf("reason %q, want MemoryLimitExceeded", p.Status.Reason)
	}
	cs := p.Status.ContainerStatuses
	if len(cs) != 1 || cs[0].State.Terminated == nil || cs[0].State.Terminated.Reason != pod.ReasonMemoryLimitExceeded {
		t.Fatalf("containerStatuses %+v, want terminated with MemoryLimitExceeded", cs)
	}
	for _, want := range []string{"128Ki", "64Ki", "resources.limits.memory"} {
		if !strings.Contains(p.Status.Message, want) || !strings.Contains(cs[0].State.Terminated.Message, want) {
			t.Errorf("messages %q / %q lack %q", p.Status.Message, cs[0].State.Terminated.Message, want)
		}
	}
	testenv.Eventually(t, "the kubelet to count the failed pod as settled", n.kubelet.Settled)
}
