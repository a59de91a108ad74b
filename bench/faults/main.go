// Command faults runs faults against one in-process `kube32 serve` cluster
// and prints what kube32 did about each: one row per figure.
//
//	go run ./bench/faults
//
// Each fault is a file of this package with a func runX(s *server) []row.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

func main() {
	s, stop, err := start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer stop()
	var rows []row
	for _, run := range []func(*server) []row{runTraps, runMemoryBomb} {
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
		Objects: []manifest.Object{benchPod("faults"), benchPod("membomb")}})
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
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/" + name}}},
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
