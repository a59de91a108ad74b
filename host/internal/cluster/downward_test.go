package cluster

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/store"
)

// downwardPod is an envpod pinned to node whose env comes from every
// field and resource the Downward API gives, fieldRef apiVersions left for
// admission to default.
func downwardPod(name, node string) manifest.Object {
	field := func(env, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	memory := func(env, res, divisor string) corev1.EnvVar {
		return corev1.EnvVar{Name: env, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
			Resource: res, Divisor: resource.MustParse(divisor)}}}
	}
	p := pinnedPod(name, name, node, "envpod", corev1.Container{
		Resources: memoryLimit("1Mi"),
		Env: []corev1.EnvVar{
			field("POD_NAME", "metadata.name"), field("POD_NAMESPACE", "metadata.namespace"), field("POD_UID", "metadata.uid"),
			field("APP", "metadata.labels['app']"), field("NOTE", "metadata.annotations['example.com/note']"),
			field("NODE", "spec.nodeName"), field("SA", "spec.serviceAccountName"),
			field("POD_IP", "status.podIP"), field("POD_IPS", "status.podIPs"),
			field("HOST_IP", "status.hostIP"), field("HOST_IPS", "status.hostIPs"),
			memory("LIMIT_KI", "limits.memory", "1Ki"), memory("REQUEST", "requests.memory", "1"),
		}})
	p.Annotations = map[string]string{"example.com/note": "on " + node}
	p.Spec.ServiceAccountName = "robot"
	return manifest.Object{Obj: p}
}

// TestDownwardAPIOnEveryNode: the control plane's kubelet reads pods from
// the store, a worker's from the API server; both give a pod the same
// Downward API, each with its own node's name and IP.
func TestDownwardAPIOnEveryNode(t *testing.T) {
	objs := []manifest.Object{downwardPod("cp", ControlPlaneName), downwardPod("w", w1)}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "envpod")), Objects: objs, Nodes: 2, Token: testToken,
		HandlerTimeout: 5 * time.Second}, "cp", "w")
	names := "/env/POD_NAME,POD_NAMESPACE,POD_UID,APP,NOTE,NODE,SA,POD_IP,POD_IPS,HOST_IP,HOST_IPS,LIMIT_KI,REQUEST"
	for _, tt := range []struct{ pod, node, ip, podURL string }{
		{"cp", ControlPlaneName, "127.0.0.1", c.PodURL()},
		{"w", w1, "127.0.0.2", c.Workers[0].PodURL()},
	} {
		o, _ := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: tt.pod})
		uid := string(o.(*corev1.Pod).UID)
		if uid == "" {
			t.Fatalf("pod %s has no UID", tt.pod)
		}
		got := podDo(t, tt.podURL, tt.pod, http.MethodGet, names, "")
		for _, want := range []string{"POD_NAME=" + tt.pod, "POD_NAMESPACE=default", "POD_UID=" + uid, "APP=" + tt.pod,
			"NOTE=on " + tt.node, "NODE=" + tt.node, "SA=robot", "POD_IP=" + tt.ip, "POD_IPS=" + tt.ip,
			"HOST_IP=" + tt.ip, "HOST_IPS=" + tt.ip, "LIMIT_KI=1024", "REQUEST=1048576"} {
			if !strings.Contains(got, "\n"+want+"\n") {
				t.Errorf("pod %s on %s answered\n%s\nlacking %q", tt.pod, tt.node, got, want)
			}
		}
	}
}
