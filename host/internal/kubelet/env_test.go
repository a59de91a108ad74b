package kubelet

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// TestServiceVariablesAtPodStart runs real pods and reads what k32_env_get
// gives them (docs/kubectl.md, "Services, Endpoints and environment
// variables").
func TestServiceVariablesAtPodStart(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))
	web := testPod("web-1", "wasm://embedded/envpod")
	web.Labels = map[string]string{"app": "web"}
	web.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 7000}}
	// The Service first: a pod's variables are those of the Services that
	// exist when it starts, and web-1 must see the one that selects it.
	n.store.Apply(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}},
	})
	n.store.Apply(web)
	n.waitPhase(t, "web-1", corev1.PodRunning)

	client := testPod("client", "wasm://embedded/envpod")
	noLinks := testPod("no-links", "wasm://embedded/envpod")
	off := false
	noLinks.Spec.EnableServiceLinks = &off
	own := testPod("own", "wasm://embedded/envpod", corev1.EnvVar{Name: "WEB_SERVICE_PORT", Value: "mine"})
	for _, p := range []*corev1.Pod{client, noLinks, own} {
		n.store.Apply(p)
	}
	testenv.Eventually(t, "the node's pods to settle", n.kubelet.Settled)

	for _, tt := range []struct {
		rule, pod string
		want      []string
	}{
		{"the host is the first ready address in the Service's Endpoints; the port is the resolved target port", "client",
			[]string{"WEB_SERVICE_HOST=127.0.0.1\n", "WEB_SERVICE_PORT=7000\n", "WEB_PORT=tcp://127.0.0.1:7000\n", "KUBERNETES_SERVICE_PORT=6443\n"}},
		{"the local node IP when the Service selects the starting pod itself", "web-1",
			[]string{"WEB_SERVICE_HOST=127.0.0.1\n", "WEB_SERVICE_PORT=7000\n"}},
		{"enableServiceLinks: false: no Service variables, KUBERNETES_SERVICE_* still", "no-links",
			[]string{"WEB_SERVICE_HOST=<unset>\n", "WEB_PORT=<unset>\n", "KUBERNETES_SERVICE_HOST=127.0.0.1\n"}},
		{"a container's own env wins over injected variables", "own",
			[]string{"WEB_SERVICE_PORT=mine\n", "WEB_SERVICE_HOST=127.0.0.1\n"}},
	} {
		status, body := n.call(t, "default/"+tt.pod, "/")
		if status != 200 {
			t.Fatalf("%s: %d %q", tt.pod, status, body)
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s (%s): answered %q, lacking %q", tt.rule, tt.pod, body, w)
			}
		}
	}
}

// TestDeletionTimestampEndsInRemoval: a pod deleted through the API keeps
// running as Terminating until its kubelet stopped it, then is gone.
func TestDeletionTimestampEndsInRemoval(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))
	n.store.Apply(testPod("a", "wasm://embedded/envpod"))
	n.waitPhase(t, "a", corev1.PodRunning)
	key := store.Key{Kind: "Pod", Namespace: "default", Name: "a"}
	n.store.Update(key, func(o runtime.Object) bool {
		now := metav1.Now()
		o.(*corev1.Pod).DeletionTimestamp = &now
		return true
	})
	testenv.Eventually(t, "the kubelet to remove the terminating pod", func() bool {
		_, ok := n.store.Get(key)
		return !ok
	})
	if status, _ := n.call(t, "default/a", "/"); status != 404 {
		t.Errorf("the removed pod still answers: %d", status)
	}
}

// fieldEnv is an env variable from a fieldRef of the pod.
func fieldEnv(name, fieldPath string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: fieldPath}}}
}

// memoryEnv is an env variable from a resourceFieldRef; divisor "" is unset.
func memoryEnv(name, containerName, res, divisor string) corev1.EnvVar {
	ref := &corev1.ResourceFieldSelector{ContainerName: containerName, Resource: res}
	if divisor != "" {
		ref.Divisor = resource.MustParse(divisor)
	}
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: ref}}
}

func memory(limit, request string) corev1.ResourceRequirements {
	var r corev1.ResourceRequirements
	if limit != "" {
		r.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}
	}
	if request != "" {
		r.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(request)}
	}
	return r
}

// TestDownwardAPIAtPodStart runs real pods whose env comes from their own
// fields and memory, and reads what k32_env_get gives them (docs/kubectl.md,
// "The Downward API").
func TestDownwardAPIAtPodStart(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))

	fields := testPod("fields", "wasm://embedded/envpod",
		fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_NAMESPACE", "metadata.namespace"),
		fieldEnv("POD_UID", "metadata.uid"), fieldEnv("APP", "metadata.labels['app']"),
		fieldEnv("NO_LABEL", "metadata.labels['nope']"), fieldEnv("NOTE", "metadata.annotations['example.com/note']"),
		fieldEnv("NODE", "spec.nodeName"), fieldEnv("SA", "spec.serviceAccountName"),
		fieldEnv("POD_IP", "status.podIP"), fieldEnv("POD_IPS", "status.podIPs"),
		fieldEnv("HOST_IP", "status.hostIP"), fieldEnv("HOST_IPS", "status.hostIPs"),
		// The container's own variables and the downward ones are one list:
		// the first of a name wins.
		corev1.EnvVar{Name: "WHO", Value: "me"}, fieldEnv("WHO", "metadata.name"))
	fields.Labels = map[string]string{"app": "web"}
	fields.Annotations = map[string]string{"example.com/note": "hello"}
	fields.Spec.ServiceAccountName = "robot"

	limited := testPod("limited", "wasm://embedded/envpod",
		memoryEnv("LIMIT", "", "limits.memory", ""), memoryEnv("LIMIT_KI", "", "limits.memory", "1Ki"),
		memoryEnv("REQUEST", "", "requests.memory", "1"), memoryEnv("REQUEST_MI", "", "requests.memory", "1Mi"),
		memoryEnv("REQUEST_K", "", "requests.memory", "1k"), memoryEnv("SIDE_LIMIT", "side", "limits.memory", "1Ki"))
	limited.Spec.Containers[0].Resources = memory("1Mi", "512Ki")
	limited.Spec.Containers = append(limited.Spec.Containers, corev1.Container{Name: "side", Image: "wasm://embedded/envpod",
		Resources: memory("256Ki", "")})

	unlimited := testPod("unlimited", "wasm://embedded/envpod",
		memoryEnv("LIMIT", "", "limits.memory", ""), memoryEnv("LIMIT_MI", "main", "limits.memory", "1Mi"),
		memoryEnv("REQUEST", "", "requests.memory", ""))
	limitOnly := testPod("limit-only", "wasm://embedded/envpod", memoryEnv("REQUEST", "", "requests.memory", ""))
	limitOnly.Spec.Containers[0].Resources = memory("2Mi", "")

	for _, p := range []*corev1.Pod{fields, limited, unlimited, limitOnly} {
		n.store.Apply(p)
	}
	testenv.Eventually(t, "the node's pods to settle", n.kubelet.Settled)
	uid := string(n.pod(t, "fields").UID)
	if uid == "" {
		t.Fatal("the store gave the pod no UID")
	}

	for _, tt := range []struct {
		pod, names string
		want       []string
	}{
		{"fields", "POD_NAME,POD_NAMESPACE,POD_UID,APP,NO_LABEL,NOTE,NODE,SA", []string{"POD_NAME=fields\n", "POD_NAMESPACE=default\n",
			"POD_UID=" + uid + "\n", "APP=web\n", "NO_LABEL=\n", "NOTE=hello\n", "NODE=" + nodeName + "\n", "SA=robot\n"}},
		{"fields", "POD_IP,POD_IPS,HOST_IP,HOST_IPS,WHO", []string{"POD_IP=127.0.0.1\n", "POD_IPS=127.0.0.1\n",
			"HOST_IP=127.0.0.1\n", "HOST_IPS=127.0.0.1\n", "WHO=me\n"}},
		// 512Ki is 524288 bytes: a half of 1Mi and 524.288k, rounded up.
		{"limited", "LIMIT,LIMIT_KI,REQUEST,REQUEST_MI,REQUEST_K,SIDE_LIMIT", []string{"LIMIT=1048576\n", "LIMIT_KI=1024\n",
			"REQUEST=524288\n", "REQUEST_MI=1\n", "REQUEST_K=525\n", "SIDE_LIMIT=256\n"}},
		// No limit: the node's default cap, the one host/internal/pod applies; no
		// request: 0.
		{"unlimited", "LIMIT,LIMIT_MI,REQUEST", []string{"LIMIT=" + strconv.Itoa(pod.DefaultMemoryLimit) + "\n",
			"LIMIT_MI=" + strconv.Itoa(pod.DefaultMemoryLimit>>20) + "\n", "REQUEST=0\n"}},
		// A request left unset is the limit, as kube-apiserver defaults it.
		{"limit-only", "REQUEST", []string{"REQUEST=2097152\n"}},
	} {
		status, body := n.call(t, "default/"+tt.pod, "/env/"+tt.names)
		if status != 200 {
			t.Fatalf("%s: %d %q", tt.pod, status, body)
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s answered %q, lacking %q", tt.pod, body, w)
			}
		}
	}
}

// TestUnresolvableDownwardAPIFailsThePod: a source the kubelet cannot
// resolve (admission refuses it; this pod skips admission) fails the pod
// with the kubelet's reason instead of starting it without the variable.
func TestUnresolvableDownwardAPIFailsThePod(t *testing.T) {
	wasm := testpods.Fixture(t, "envpod", 65536)
	n := startNode(t, imageTree(map[string][]byte{"envpod": wasm}))
	n.store.Apply(testPod("ghost", "wasm://embedded/envpod", memoryEnv("LIMIT", "ghost", "limits.memory", "")))
	n.store.Apply(testPod("phase", "wasm://embedded/envpod", fieldEnv("PHASE", "status.phase")))
	for name, want := range map[string]string{"ghost": `env[0] (LIMIT): resourceFieldRef.containerName: container "ghost" not found`,
		"phase": `env[0] (PHASE): fieldRef.fieldPath: "status.phase" is not supported`} {
		p := n.waitPhase(t, name, corev1.PodFailed)
		if p.Status.Reason != "CreateContainerConfigError" || p.Status.Message != want {
			t.Errorf("%s: reason %q message %q, want CreateContainerConfigError: %s", name, p.Status.Reason, p.Status.Message, want)
		}
	}
}
