package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// serve --nodes 3 runs the demo on a control plane and two workers: three
// Ready Nodes on 127.0.0.1-3, the echo pod placed on one of them and
// reached through the Ingress wherever it runs.
func TestServeNodes(t *testing.T) {
	t.Chdir(t.TempDir())
	c, out := serve(t, "--nodes", "3")
	if len(c.Workers()) != 2 {
		t.Fatalf("%d workers, want 2", len(c.Workers()))
	}
	ips := map[string]string{}
	for _, o := range c.List("Node", "") {
		n := o.(*corev1.Node)
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				ips[n.Name] = a.Address
			}
		}
	}
	want := map[string]string{host.ControlPlaneName: "127.0.0.1", host.WorkerName(1): "127.0.0.2", host.WorkerName(2): "127.0.0.3"}
	for name, ip := range want {
		if ips[name] != ip {
			t.Errorf("Node %s InternalIP %q, want %s (all: %v)", name, ips[name], ip, ips)
		}
	}
	if reply := postEcho(t, c, "hi"); reply["body"] != "hi" {
		t.Errorf("echo reply %v", reply)
	}
	for _, line := range []string{host.WorkerName(1), "127.0.0.3:"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
}

func TestNodeNeedsJoin(t *testing.T) {
	code, out := testserve.Run(t, "node")
	if code != 2 || !strings.Contains(out, "--join") || !strings.Contains(out, "--kubeconfig") {
		t.Errorf("kube32 node: exit %d, output %q; want 2 and a word about --join and --kubeconfig", code, out)
	}
}

// node joins one cluster: a kube32 control plane (--join) or a Kubernetes
// cluster (--kubeconfig); a kubeconfig it cannot read is named.
func TestNodeJoinsOneCluster(t *testing.T) {
	images := t.TempDir()
	if err := os.MkdirAll(filepath.Join(images, "firmware"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nope.kubeconfig")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--join", "http://127.0.0.1:1", "--kubeconfig", missing}, 2, "--join and --kubeconfig: give one"},
		{[]string{"--join", "http://127.0.0.1:1", "--context", "prod"}, 2, "--context needs --kubeconfig"},
		{[]string{"--join", "http://127.0.0.1:1", "--kubelet-port", "10251"}, 2, "--kubelet-port needs --kubeconfig"},
		{[]string{"--join", "http://127.0.0.1:1", "--cert-dir", "pki"}, 2, "--cert-dir needs --kubeconfig"},
		{[]string{"--join", "http://127.0.0.1:1", "--hostname-override", "localhost"}, 2, "--hostname-override needs --kubeconfig"},
		{[]string{"--kubeconfig", missing, "--images", images}, 1, "kubeconfig " + missing},
	} {
		code, out := testserve.Run(t, append([]string{"node"}, c.args...)...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("kube32 node %s: exit %d, output %q; want %d and %q", strings.Join(c.args, " "), code, out, c.code, c.want)
		}
	}
}

// node --join applies serve's node limits: a memory cap under one page is
// refused as a usage mistake (exit 2), naming the flag.
func TestNodeChecksDefaultMemoryLimit(t *testing.T) {
	code, out := testserve.Run(t, "node", "--join", "http://127.0.0.1:1", "--default-memory-limit", "1Ki")
	if code != 2 || !strings.Contains(out, "--default-memory-limit 1Ki: less than one WebAssembly page") {
		t.Errorf("kube32 node --default-memory-limit 1Ki: exit %d, output %q", code, out)
	}
}

func TestNodeChecksImages(t *testing.T) {
	code, out := testserve.Run(t, "node", "--join", "http://127.0.0.1:1", "--images", t.TempDir())
	if code != 1 || !strings.Contains(out, "holds neither firmware/ nor sd/") {
		t.Errorf("kube32 node --images EMPTY: exit %d, output %q", code, out)
	}
}

// A worker with the wrong token fails at once, saying why.
func TestNodeWrongToken(t *testing.T) {
	t.Chdir(t.TempDir())
	c, _ := serve(t, "--token", "right")
	images := t.TempDir()
	if err := os.MkdirAll(filepath.Join(images, "firmware"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out := testserve.Run(t, "node", "--join", c.APIURL(), "--token", "wrong", "--node-ip", "127.0.0.7",
		"--pod-port", "0", "--images", images)
	if code != 1 || !strings.Contains(out, "Unauthorized") {
		t.Errorf("kube32 node --token wrong: exit %d, output %q", code, out)
	}
}

// node --board applies the board's budgets to the joining node, as serve
// --board does to its own: its Node reports the board's memory.
func TestNodeBoard(t *testing.T) {
	if code, out := testserve.Run(t, "node", "--join", "http://127.0.0.1:1", "--board", "esp64"); code != 2 || !strings.Contains(out, `unknown board "esp64"`) {
		t.Errorf("kube32 node --board esp64: exit %d, output %q", code, out)
	}
	t.Chdir(t.TempDir())
	c, _ := serve(t)
	images := t.TempDir()
	if err := os.MkdirAll(filepath.Join(images, "firmware"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- cli.Run(ctx, []string{"node", "--join", c.APIURL(), "--board", "esp32", "--name", "board-node", "--node-ip", "127.0.0.8",
			"--pod-port", "0", "--images", images}, cli.IOStreams{In: strings.NewReader(""), Out: &testserve.Output{}, ErrOut: &testserve.Output{}})
	}()
	defer func() { cancel(); <-done }()
	testenv.Eventually(t, "the node to report esp32's pod memory as allocatable", func() bool {
		o, ok := c.Get(host.Key{Kind: "Node", Name: "board-node"})
		if !ok {
			return false
		}
		q, ok := o.(*corev1.Node).Status.Allocatable[corev1.ResourceMemory]
		return ok && q.Value() == 128<<10
	})
}
