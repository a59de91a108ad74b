// Command calls measures in-cluster k32_http_call latency (p50, p99) on
// one node and across nodes against a direct Go HTTP client request on
// loopback, and Ingress throughput to a pod on a worker node against plain
// net/http, in one run of a 2-node `kube32 serve` cluster.
//
// The calls are made through the control plane's host.Caller, as a pod's
// k32_http_call is, to relay pods (internal/testkit/testpods/c/relay.c, built with clang).
//
//	go run ./bench/calls [-n 2000] [-d 5s] [-c 32]
//
// The Ingress load generator is wrk when it is installed (bench/internal/load).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/bench/internal/report"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/compile"
)

// The profiles -cpuprofile and -memprofile ask for.
var cpuProfile, memProfile, callProfile string

func main() {
	n := flag.Int("n", 2000, "calls measured per target")
	duration := flag.Duration("d", 5*time.Second, "how long to load each Ingress target")
	concurrency := flag.Int("c", 32, "concurrent Ingress connections")
	flag.StringVar(&callProfile, "callprofile", "", "write a CPU profile of the cross-node calls to this file")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of kube32's Ingress run to this file")
	flag.StringVar(&memProfile, "memprofile", "", "write an allocation profile (from the start to the end of kube32's Ingress run) to this file")
	flag.Parse()
	if err := run(*n, *duration, *concurrency); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n int, duration time.Duration, concurrency int) error {
	images, err := buildRelay()
	if err != nil {
		return err
	}
	defer os.RemoveAll(images)
	objs := []manifest.Object{
		relay("a", host.ControlPlaneName), relay("near", host.ControlPlaneName), relay("far", host.WorkerName(1)),
		service("near"), service("far"), ingress("far"),
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := host.Start(context.Background(), host.Options{Images: os.DirFS(images), Objects: objs, Nodes: 2})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.WaitReady(ctx); err != nil {
		return err
	}

	plain, err := startPlain()
	if err != nil {
		return err
	}
	defer plain.Close()
	plainURL := "http://" + plain.Addr().String()

	caller := c.Caller()
	callOnce := func(url string) func() error {
		return func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			res, err := caller.HTTPCall(ctx, host.Call{From: "default/a", Chain: []string{"default/a"}, Method: "GET",
				URL: url, RespCap: 4096, Timeout: 5 * time.Second})
			if err == nil && res.Status != 200 {
				err = fmt.Errorf("status %d", res.Status)
			}
			return err
		}
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	direct := func() error {
		resp, err := client.Get(plainURL + "/")
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	}
	fmt.Printf("in-cluster calls, %d each (p50 / p99)\n", n)
	var p50s []time.Duration // same node, cross-node, direct
	for _, m := range []struct {
		name    string
		f       func() error
		profile bool
	}{
		{"k32_http_call same node (in-process)", callOnce("http://near/"), false},
		{"k32_http_call cross-node (pool)     ", callOnce("http://far/"), true},
		{"direct Go HTTP client on loopback   ", direct, false},
	} {
		stopProfile := func() error { return nil }
		if m.profile {
			if stopProfile, err = load.Profile(callProfile, ""); err != nil {
				return err
			}
		}
		p50, p99, err := latency(n, m.f)
		if perr := stopProfile(); err == nil {
			err = perr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		fmt.Printf("  %s  %9s / %9s\n", m.name, p50, p99)
		p50s = append(p50s, p50)
	}
	fmt.Printf("  ratio p50 cross-node/direct           %9.2f\n", float64(p50s[1])/float64(p50s[2]))

	fmt.Printf("Ingress to a worker pod, GET /, %s, %d connections, %s each\n", load.Generator(), concurrency, duration)
	stopProfile, err := load.Profile(cpuProfile, memProfile)
	if err != nil {
		return err
	}
	viaIngress, err := load.Measure(load.Request{Method: http.MethodGet, URL: c.IngressURL() + "/"}, duration, concurrency)
	if perr := stopProfile(); err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	baseline, err := load.Measure(load.Request{Method: http.MethodGet, URL: plainURL + "/"}, duration, concurrency)
	if err != nil {
		return err
	}
	fmt.Printf("  kube32 ingress -> worker pod:  %8.0f req/s  (%d errors)\n", viaIngress.Rate, viaIngress.Errors)
	fmt.Printf("  plain net/http handler:        %8.0f req/s  (%d errors)\n", baseline.Rate, baseline.Errors)
	fmt.Printf("  ratio kube32/plain:            %8.2f\n", viaIngress.Rate/baseline.Rate)
	micros := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	report.Print("call-same-node-p50", micros(p50s[0]), micros(p50s[2]), "µs")
	report.Print("call-cross-node-p50", micros(p50s[1]), micros(p50s[2]), "µs")
	report.Print("ingress-worker", viaIngress.Rate, baseline.Rate, "req/s")
	return nil
}

// latency runs f n times (after a warm-up) and returns the median and the
// 99th percentile.
func latency(n int, f func() error) (time.Duration, time.Duration, error) {
	for i := 0; i < n/10+1; i++ {
		if err := f(); err != nil {
			return 0, 0, err
		}
	}
	times := make([]time.Duration, n)
	for i := range times {
		start := time.Now()
		if err := f(); err != nil {
			return 0, 0, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[n/2], times[n*99/100], nil
}

// startPlain answers like a relay pod asked for nothing: a few lines of
// text.
func startPlain() (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "who=plain\nchain=\npath=%s\nheaders:\n", r.URL.Path)
	}))
	return l, nil
}

// buildRelay compiles the kubelet's relay test pod
// (internal/testkit/testpods/c/relay.c) into a new image tree.
func buildRelay() (string, error) {
	_, self, _, _ := runtime.Caller(0)
	here := filepath.Dir(self)
	dir, err := os.MkdirTemp("", "kube32-bench-calls")
	if err != nil {
		return "", err
	}
	wasmDir := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		return "", err
	}
	args := append([]string{}, compile.BaseCFlags...)
	args = append(args, "-Wl,--initial-memory=65536", "-I"+filepath.Join(here, "..", "..", "sdk", "c"),
		"-o", filepath.Join(wasmDir, "relay.wasm"), filepath.Join(here, "..", "..", "internal", "testkit", "testpods", "c", "relay.c"))
	if out, err := exec.Command("clang", args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("clang relay.c: %v\n%s", err, out)
	}
	return dir, nil
}

func relay(name, node string) manifest.Object {
	return manifest.Object{Obj: &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/hostname": node},
			Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/relay",
				Env: []corev1.EnvVar{{Name: "WHO", Value: name}}}}},
	}}
}

func service(name string) manifest.Object {
	return manifest.Object{Obj: &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Port: 80}}},
	}}
}

func ingress(svc string) manifest.Object {
	prefix := networkingv1.PathTypePrefix
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: svc},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc,
					Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
	}}
}
