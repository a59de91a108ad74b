// Command faults runs faults against one in-process `kube32 serve` cluster
// and prints what kube32 did about each: one row per figure.
//
//	go run ./bench/faults [-idle 3000] [-slow 4]
//
// Each fault is a file of this package with a func runX(s *server) []row.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/bundler/compile"
	"github.com/kube32/kube32/host/cluster"
	"github.com/kube32/kube32/host/manifest"
)

// server is the cluster the faults run against.
type server struct {
	c *cluster.Cluster
}

// row is one figure of the table.
type row struct{ fault, figure, value string }

var (
	idleConns   = flag.Int("idle", 3000, "idle keep-alive connections to open")
	slowClients = flag.Int("slow", 4, "slow request bodies to trickle")
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
	for _, run := range []func(*server) []row{runTraps, runMemoryBomb, runConns} {
		rows = append(rows, run(s)...)
	}
	fmt.Printf("%-28s %-52s %s\n", "fault", "figure", "kube32")
	for _, r := range rows {
		fmt.Printf("%-28s %-52s %s\n", r.fault, r.figure, r.value)
	}
}

// start builds the fault pods (internal/testpods: faults.c, the Go
// membomb) and serves them on the control plane, without memory limits.
func start() (*server, func(), error) {
	_, self, _, _ := runtime.Caller(0)
	pods := filepath.Join(filepath.Dir(self), "..", "..", "internal", "testpods")
	images, err := os.MkdirTemp("", "kube32-bench-faults")
	if err != nil {
		return nil, nil, err
	}
	wasmDir := filepath.Join(images, "firmware", "images", "wasm")
	ctx := context.Background()
	for _, job := range []compile.Job{
		{Name: "faults", Language: "c", SourceDir: filepath.Join(pods, "c"), CFlags: []string{"-Wl,--initial-memory=65536"}},
		{Name: "membomb", Language: "go", SourceDir: filepath.Join(pods, "go", "membomb")},
	} {
		job.CacheDir = filepath.Join(images, "cache")
		if job.Language == "c" { // one fixture of the folder
			job.SourceDir = filepath.Join(images, "src")
			if err := copyFile(filepath.Join(pods, "c", "faults.c"), filepath.Join(job.SourceDir, "faults.c")); err != nil {
				return nil, nil, err
			}
		}
		wasm, err := compile.Compile(ctx, job)
		if err == nil {
			err = os.MkdirAll(wasmDir, 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(wasmDir, job.Name+".wasm"), wasm, 0o644)
		}
		if err != nil {
			os.RemoveAll(images)
			return nil, nil, err
		}
	}
	c, err := cluster.Start(ctx, cluster.Options{Images: os.DirFS(images),
		Objects: []manifest.Object{benchPod("faults"), benchPod("membomb"), faultsService(), faultsIngress()}})
	if err != nil {
		os.RemoveAll(images)
		return nil, nil, err
	}
	stop := func() { c.Close(); os.RemoveAll(images) }
	readyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := c.WaitReady(readyCtx); err != nil {
		stop()
		return nil, nil, err
	}
	return &server{c: c}, stop, nil
}

func benchPod(name string) manifest.Object {
	return manifest.Object{Obj: &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/" + name}}},
	}}
}

// faultsService and faultsIngress route /check through the Ingress to the
// faults pod, for the faults of clients.
func faultsService() manifest.Object {
	return manifest.Object{Obj: &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "faults"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "faults"},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(7000)}}},
	}}
}

func faultsIngress() manifest.Object {
	exact := networkingv1.PathTypeExact
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
		Name: "faults", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "faults"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/check", PathType: &exact, Backend: backend}}},
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
