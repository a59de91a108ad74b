// Command faults runs every fault of docs/serve.md ("Faults", "Hostile
// clients") and docs/nodes.md (a dead worker, the uplink) against one
// in-process `kube32 serve` cluster of two nodes, plus a worker joined with
// `kube32 node --join` in a process of its own, and prints what kube32 did
// about each: one row per figure.
//
//	go run ./bench/faults [-idle 3000] [-slow 4] [-lines 25600] [-n 50] [-grace 40s]
//
// Each fault is a file of this package with a func runX(s *server) []row;
// the dead worker runs last, as its wait for the Node grace period
// dominates the run (about 1.5 minutes with defaults; -grace shortens it).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// server is the cluster the faults run against.
type server struct {
	c *host.Cluster
	// images is the image tree the cluster runs from, for the joined worker.
	images string
	// floodLog counts the bytes of the flood pod's log lines as serve
	// prints them.
	floodLog atomic.Int64
}

// row is one figure of the table.
type row struct{ fault, figure, value string }

var (
	idleConns   = flag.Int("idle", 3000, "idle keep-alive connections to open")
	slowClients = flag.Int("slow", 4, "slow request bodies to trickle")
	floodLines  = flag.Int("lines", 25600, "lines the log flood pod writes")
	floodBytes  = flag.Int("bytes", 4096, "bytes of each log flood line, newline included")
	uplinkCalls = flag.Int("n", 50, "outside calls per uplink phase")
	grace       = flag.Duration("grace", abi.NodeMonitorGracePeriod, "how long a node's Lease may go unrenewed before it is not Ready")
)

// The names of the nodes and pods the faults use.
const (
	joinedNode = "ext"        // the worker of `kube32 node --join`
	joinedIP   = "127.0.0.12" // its InternalIP
)

func main() {
	flag.Parse()
	s, stop, err := start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer stop()
	var rows []row
	for _, run := range []func(*server) []row{runTraps, runMemoryBomb, runConns, runStreams, runLogFlood, runUplink, runNetDest, runCallTimeout, runToken, runSlowClients, runHeaderFlood, runModuleBudget, runDeadWorker} {
		rows = append(rows, run(s)...)
	}
	rows = append([]row{{"fault", "figure", "kube32"}}, rows...)
	faultWidth, figureWidth := 0, 0
	for _, r := range rows {
		faultWidth, figureWidth = max(faultWidth, len(r.fault)), max(figureWidth, len(r.figure))
	}
	for _, r := range rows {
		fmt.Printf("%-*s  %-*s  %s\n", faultWidth, r.fault, figureWidth, r.figure, r.value)
	}
}

// failed is the row of a fault that could not be measured.
func failed(fault string, err error) []row {
	return []row{{fault, "failed", err.Error()}}
}

// start builds the fault pods (internal/testkit/testpods: faults.c, logflood.c,
// relay.c, the Go membomb) and serves them, without memory limits, on a
// control plane and one worker; the pod of the joined worker waits for it.
func start() (*server, func(), error) {
	images, err := os.MkdirTemp("", "kube32-bench-faults")
	if err != nil {
		return nil, nil, err
	}
	if err := buildPods(images); err != nil {
		os.RemoveAll(images)
		return nil, nil, err
	}
	s := &server{images: images}
	objects := []manifest.Object{
		benchPod("faults", "faults", host.ControlPlaneName), benchPod("membomb", "membomb", host.ControlPlaneName),
		benchPod("flood", "flood", host.ControlPlaneName),
		relayPod("b", "b", host.WorkerName(1)), relayPod("web-cp", "web", host.ControlPlaneName), relayPod("web-ext", "web", joinedNode),
		benchPod("respflood", "respflood", host.ControlPlaneName), benchPod("respflood-w", "respflood", host.WorkerName(1)),
		service("faults", 7000), service("web", 80),
		ingress("faults", "/check", networkingv1.PathTypeExact), ingress("web", "/web", networkingv1.PathTypePrefix),
	}
	c, err := host.Start(context.Background(), host.Options{Images: os.DirFS(images), Objects: objects, Nodes: 2,
		NodeGrace: *grace, LeaseRenewInterval: leaseRenewInterval(), PodLog: s.countFlood})
	if err != nil {
		os.RemoveAll(images)
		return nil, nil, err
	}
	s.c = c
	stop := func() { c.Close(); os.RemoveAll(images) }
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return s, stop, nil
}

// leaseRenewInterval is how often the nodes renew their Leases: the
// default, or a quarter of a shortened -grace, so that only the killed
// worker goes silent for longer than the grace.
func leaseRenewInterval() time.Duration { return min(abi.NodeLeaseRenewInterval, *grace/4) }

// countFlood is the cluster's PodLog: it counts the flood pod's lines as
// serve prints them ("[namespace/name] text", cli/serve.go).
func (s *server) countFlood(namespace, name string, line host.LogLine) {
	if name == "flood" {
		s.floodLog.Add(int64(len(fmt.Sprintf("[%s/%s] %s\n", namespace, name, strings.TrimRight(line.Text, "\n")))))
	}
}

// buildPods compiles the fault pods as `kube32 build` does into the image
// tree at images.
func buildPods(images string) error {
	wasmDir := filepath.Join(images, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		return err
	}
	for name, source := range map[string]string{"faults": "faults.c", "flood": "logflood.c", "relay": "relay.c", "respflood": "respflood.c"} {
		if err := buildCPod(images, name, source); err != nil {
			return err
		}
	}
	m, err := compile.Compile(context.Background(), compile.Job{Name: "membomb", Language: "go",
		SourceDir: filepath.Join(testpods.GoDir, "membomb"), CacheDir: filepath.Join(images, "cache")})
	if err != nil {
		return fmt.Errorf("building membomb: %w", err)
	}
	return os.WriteFile(filepath.Join(wasmDir, "membomb.wasm"), m.Wasm, 0o644)
}

// buildCPod compiles source, a C test pod of internal/testkit/testpods/c,
// with the headers of its folder, as kube32 build compiles a project's pod,
// into the image tree at images as name.wasm.
func buildCPod(images, name, source string) error {
	src := filepath.Join(images, "src", name)
	headers, err := filepath.Glob(filepath.Join(testpods.Dir, "*.h"))
	if err != nil {
		return err
	}
	for _, f := range append(headers, filepath.Join(testpods.Dir, source)) {
		if err := copyFile(f, filepath.Join(src, filepath.Base(f))); err != nil {
			return err
		}
	}
	m, err := compile.Compile(context.Background(), compile.Job{Name: name, Language: "c", SourceDir: src,
		CacheDir: filepath.Join(images, "cache"), CFlags: []string{"-Wl,--initial-memory=65536"}})
	if err != nil {
		return fmt.Errorf("building %s: %w", name, err)
	}
	return os.WriteFile(filepath.Join(images, "firmware", "images", "wasm", name+".wasm"), m.Wasm, 0o644)
}

func benchPod(name, image, node string) manifest.Object {
	return manifest.Object{Obj: &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/hostname": node},
			Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/" + image}}},
	}}
}

// relayPod is a relay pod (internal/testkit/testpods/c/relay.c) labelled
// app=<app> with WHO=<name>, pinned to node, allowed to call.
func relayPod(name, app, node string) manifest.Object {
	o := benchPod(name, "relay", node)
	p := o.Obj.(*corev1.Pod)
	p.Labels["app"] = app
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "WHO", Value: name}}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
		Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SERVICE_CALL"}}}
	return o
}

// service selects the pods labelled app=<name>, port 80 to their port.
func service(name string, port int32) manifest.Object {
	return manifest.Object{Obj: &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(port)}}},
	}}
}

// ingress routes path to Service name port 80.
func ingress(name, path string, pathType networkingv1.PathType) manifest.Object {
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
		Name: name, Port: networkingv1.ServiceBackendPort{Number: 80}}}
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: path, PathType: &pathType, Backend: backend}}},
		}}}},
	}}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	return err
}
