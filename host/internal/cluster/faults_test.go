package cluster

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// faultsPod is internal/testkit/testpods/c/faults.c, without resources.limits.memory,
// pinned to node.
func faultsPod(name, node string) manifest.Object {
	return manifest.Object{Obj: pinnedPod(name, "", node, "faults", corev1.Container{})}
}

// On the control plane and on a worker (whose status goes through the API
// server), a trap and an out-of-memory restart the container in place: the
// pod stays Running and Ready, restartCount and lastState.terminated say
// what happened, as client-go, kubectl get and kubectl describe show them.
// The default memory limit of the cluster's options caps both. (No token:
// kubectl sends none over plain HTTP.)
func TestTrapsAndOutOfMemoryShowAsContainerRestarts(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "faults")), Nodes: 2,
		DefaultMemoryLimit: 256 << 10,
		Objects:            []manifest.Object{faultsPod("cp", ControlPlaneName), faultsPod("w1", w1)}}, "cp", "w1")
	pods := kubernetes.NewForConfigOrDie(&rest.Config{Host: c.APIURL()}).CoreV1().Pods("default")
	for _, node := range []struct{ pod, url string }{{"cp", c.PodURL()}, {"w1", c.Workers[0].PodURL()}} {
		at := func(path string) testhttp.Reply {
			return testhttp.Get(t, node.url+path, "X-Kube32-Pod: default/"+node.pod)
		}
		if r := at("/grow"); r.Status != http.StatusInsufficientStorage || r.Body != "pages=4 grow=-1\n" {
			t.Fatalf("%s /grow: %s, want 507 at the 256Ki default", node.pod, r)
		}
		for range 3 {
			if r := at("/deep"); r.Status != http.StatusInternalServerError {
				t.Fatalf("%s /deep: %s, want 500", node.pod, r)
			}
		}
		if r := at("/bomb"); r.Status != http.StatusInternalServerError || !strings.Contains(r.Body, "memory limit (256Ki)") {
			t.Fatalf("%s /bomb: %s, want 500 naming the limit", node.pod, r)
		}
		if r := at("/check"); r.Status != http.StatusOK || !strings.HasPrefix(r.Body, "static=intact") {
			t.Fatalf("%s /check after the faults: %s", node.pod, r)
		}
		var cs corev1.ContainerStatus
		testenv.EventuallyNil(t, node.pod+"'s status to count 4 restarts", func() error {
			p, err := pods.Get(context.Background(), node.pod, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if p.Status.Phase != corev1.PodRunning || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount != 4 {
				return fmt.Errorf("phase %s, container statuses %+v", p.Status.Phase, p.Status.ContainerStatuses)
			}
			cs = p.Status.ContainerStatuses[0]
			return nil
		})
		end := cs.LastTerminationState.Terminated
		if !cs.Ready || cs.State.Running == nil || end == nil || end.Reason != "OOMKilled" || end.ExitCode != 137 ||
			!strings.HasPrefix(end.Message, "k32_handle trapped: wasm error: unreachable after memory.grow was refused") ||
			end.StartedAt.IsZero() || end.FinishedAt.Before(&end.StartedAt) {
			t.Errorf("%s container status %+v, last state %+v; want ready, running, last OOMKilled 137", node.pod, cs, end)
		}
		if !cs.State.Running.StartedAt.After(time.Now().Add(-time.Minute)) {
			t.Errorf("%s running since %v, want since the last restart", node.pod, cs.State.Running.StartedAt)
		}

		config := filepath.Join(t.TempDir(), "kubeconfig")
		if err := kubeconfig.Write(config, kubeconfig.Entry{Server: c.APIURL()}); err != nil {
			t.Fatal(err)
		}
		run := func(args ...string) string {
			cmd := exec.Command(kubectl, append([]string{"--kubeconfig", config, "--context", kubeconfig.Name, "--cache-dir", t.TempDir(),
				"--request-timeout", "20s"}, args...)...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		if out := run("get", "pod", node.pod, "--no-headers"); !strings.Contains(out, "1/1") || !strings.Contains(out, "Running") ||
			!strings.Contains(out, " 4 (") {
			t.Errorf("kubectl get pod %s: %q, want 1/1 Running with 4 restarts", node.pod, out)
		}
		out := run("describe", "pod", node.pod)
		for _, want := range []string{"Last State:     Terminated", "Reason:       OOMKilled", "Exit Code:    137", "Restart Count:  4"} {
			if !strings.Contains(out, want) {
				t.Errorf("kubectl describe pod %s lacks %q:\n%s", node.pod, want, out)
			}
		}
	}
}
