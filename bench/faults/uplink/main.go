// Command uplink measures the uplink fault of docs/nodes.md, "The uplink":
// the share of a worker pod's calls to a host outside that succeed, and
// their latency, while the control plane's uplink is up, while it is down
// and after it comes back, in one 2-node `kube32 serve` cluster. The pod is
// the relay test pod (internal/testpods/c/relay.c, built with clang); the
// host is a plain net/http server on loopback.
//
//	go run ./bench/faults/uplink [-n 50] [-timeout 200]
//
// runUplink is kept apart from main so that a bench/faults program running
// every fault can call it.
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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/bundler/compile"
	"github.com/kube32/kube32/host/cluster"
	"github.com/kube32/kube32/host/manifest"
	"github.com/kube32/kube32/internal/testpods"
)

func main() {
	n := flag.Int("n", 50, "calls per phase")
	timeout := flag.Int("timeout", 200, "the pod's timeout_ms")
	flag.Parse()
	rows, err := runUplink(*n, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Printf("%-28s %8s %10s %10s  %s\n", "worker -> host outside", "ok", "p50", "max", "codes")
	for _, r := range rows {
		fmt.Printf("%-28s %7.0f%% %10s %10s  %s\n", r.phase, 100*r.okShare, r.p50.Round(10*time.Microsecond), r.max.Round(10*time.Microsecond), r.codes)
	}
}

// uplinkRow is one phase's figures.
type uplinkRow struct {
	phase    string
	okShare  float64
	p50, max time.Duration
	codes    string // the call results seen, e.g. "rc=200 x50"
}

// runUplink makes n calls from a worker's pod in each phase: uplink up,
// down, and up again.
func runUplink(n, timeoutMS int) ([]uplinkRow, error) {
	images, err := buildRelay()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(images)
	l, err := net.Listen("tcp4", "127.0.0.80:0")
	if err != nil {
		return nil, err
	}
	host := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })}
	go host.Serve(l)
	defer host.Close()

	c, err := cluster.Start(context.Background(), cluster.Options{Images: os.DirFS(images), Nodes: 2,
		Objects: []manifest.Object{relay("b", cluster.WorkerName(1))}})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		return nil, err
	}
	commands := fmt.Sprintf("call GET http://%s/ %d 64\n", l.Addr(), timeoutMS)
	phase := func(name string) (uplinkRow, error) {
		var took []time.Duration
		codes := map[string]int{}
		ok := 0
		for range n {
			start := time.Now()
			out, err := testpods.Relay(c.Workers[0].PodURL(), "default/b", commands)
			took = append(took, time.Since(start))
			if err != nil {
				return uplinkRow{}, err
			}
			rc := callRC(out)
			codes[rc]++
			if rc == "rc=200" {
				ok++
			}
		}
		slices.Sort(took)
		var seen []string
		for rc, k := range codes {
			seen = append(seen, fmt.Sprintf("%s x%d", rc, k))
		}
		slices.Sort(seen)
		return uplinkRow{phase: name, okShare: float64(ok) / float64(n), p50: took[len(took)/2], max: took[len(took)-1],
			codes: strings.Join(seen, ", ")}, nil
	}
	var rows []uplinkRow
	for _, p := range []struct {
		name string
		up   bool
	}{{"uplink up", true}, {"uplink down", false}, {"uplink up again", true}} {
		c.SetUplink(p.up)
		r, err := phase(p.name)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// callRC is the "rc=..." of the relay pod's answer.
func callRC(out string) string {
	_, rest, ok := strings.Cut(out, "call rc=")
	if !ok {
		return "no call"
	}
	rc, _, _ := strings.Cut(rest, " ")
	return "rc=" + rc
}

// buildRelay compiles the relay test pod into an image tree.
func buildRelay() (string, error) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(self), "..", "..", "..")
	dir, err := os.MkdirTemp("", "kube32-bench-uplink")
	if err != nil {
		return "", err
	}
	wasmDir := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		return "", err
	}
	args := append([]string{}, compile.BaseCFlags...)
	args = append(args, "-Wl,--initial-memory=65536", "-I"+filepath.Join(root, "sdk", "c"),
		"-o", filepath.Join(wasmDir, "relay.wasm"), filepath.Join(root, "internal", "testpods", "c", "relay.c"))
	if out, err := exec.Command("clang", args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("clang relay.c: %v\n%s", err, out)
	}
	return dir, nil
}

func relay(name, node string) manifest.Object {
	return manifest.Object{Obj: &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/hostname": node},
			Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/relay",
				Env:             []corev1.EnvVar{{Name: "WHO", Value: name}},
				SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SERVICE_CALL"}}}}}},
	}}
}
