package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/internal/testkit/testpods"
)

// runDeadWorker joins a worker with `kube32 node --join` in a process of
// its own, which runs web-ext beside web-cp on the control plane behind
// the Ingress's /web, kills it with SIGKILL, and sends requests through
// the Ingress until its Node is not Ready: it reports the share that
// failed and how long that took (docs/nodes.md, "Node liveness").
func runDeadWorker(s *server) []row {
	const fault = "dead worker (SIGKILL)"
	tmp, err := os.MkdirTemp("", "kube32-bench-node")
	if err != nil {
		return failed(fault, err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin", "kube32") // beside its cache, tmp/kube32
	build := exec.Command("go", "build", "-o", bin, "./cli/kube32")
	build.Dir = filepath.Join(testpods.Dir, "..", "..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		return failed(fault, fmt.Errorf("go build: %v\n%s", err, out))
	}
	port, err := freePort(joinedIP)
	if err != nil {
		return failed(fault, err)
	}
	var out lockedBuffer
	node := exec.Command(bin, "node", "--join", s.c.APIURL(), "--token", "", "--node-ip", joinedIP,
		"--pod-port", strconv.Itoa(port), "--name", joinedNode, "--images", s.images,
		"--lease-renew-interval", leaseRenewInterval().String())
	node.Env = append(os.Environ(), "XDG_CACHE_HOME="+tmp, "HOME="+tmp)
	node.Stdout, node.Stderr = &out, &out
	if err := node.Start(); err != nil {
		return failed(fault, err)
	}
	exited := make(chan struct{})
	go func() { node.Wait(); close(exited) }()
	kill := func() { node.Process.Signal(syscall.SIGKILL); <-exited }
	defer kill()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for !podReady(s.c, "web-cp") || !podReady(s.c, "web-ext") {
		select {
		case <-exited:
			return failed(fault, fmt.Errorf("kube32 node exited:\n%s", out.String()))
		case <-ctx.Done():
			return failed(fault, fmt.Errorf("web-ext did not become ready on the joined worker:\n%s", out.String()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := s.c.WaitReady(ctx); err != nil {
		return failed(fault, err)
	}

	client := &http.Client{Timeout: 10 * time.Second}
	kill()
	killed := time.Now()
	var sent, failures int
	for nodeReady(s.c, joinedNode) {
		if time.Since(killed) > *grace+2*time.Minute {
			return failed(fault, fmt.Errorf("node %s still Ready %s after the kill", joinedNode, time.Since(killed).Round(time.Second)))
		}
		resp, err := client.Get(s.c.IngressURL() + "/web")
		sent++
		if err != nil || resp.StatusCode != http.StatusOK {
			failures++
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(10 * time.Millisecond)
	}
	notReady := time.Since(killed)
	return []row{
		{fault, "ingress requests failed until its Node is not Ready", fmt.Sprintf("%d/%d (%.1f%%)", failures, sent, 100*float64(failures)/float64(max(sent, 1)))},
		{fault, fmt.Sprintf("time from the kill until its Node is not Ready (grace %s)", *grace), notReady.Round(100 * time.Millisecond).String()},
	}
}

// podReady reports whether pod default/name has Ready=True.
func podReady(cl *host.Cluster, name string) bool {
	o, ok := cl.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name})
	if !ok {
		return false
	}
	for _, c := range o.(*corev1.Pod).Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// nodeReady reports whether Node name has Ready=True.
func nodeReady(cl *host.Cluster, name string) bool {
	o, ok := cl.Get(host.Key{Kind: "Node", Name: name})
	if !ok {
		return false
	}
	for _, c := range o.(*corev1.Node).Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// freePort returns a port free on ip now.
func freePort(ip string) (int, error) {
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lockedBuffer is the joined worker's output, written by its process's
// pipes and read on a failure.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
