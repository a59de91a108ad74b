package cluster

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// TestJoinFromAnotherProcess runs `kube32 node --join` as a second
// process: its kubelet registers over the API with the token, runs the
// pod bound to it, and pods of both processes call each other.
func TestJoinFromAnotherProcess(t *testing.T) {
	images := fixtureImages(t, "relay")
	testenv.Tool(t, "clang")
	goTool := testenv.Tool(t, "go")
	bin := filepath.Join(t.TempDir(), "kube32")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../../../cli/kube32").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	objs := []manifest.Object{relay("a", "a", ControlPlaneName), relay("ext", "ext", "ext"), svc("a"), svc("ext")}
	c, err := Start(context.Background(), Options{Images: os.DirFS(images), Objects: objs, Token: testToken, HandlerTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })

	const ip = "127.0.0.9"
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "node", "--join", c.APIURL(), "--token", testToken, "--node-ip", ip,
		"--pod-port", strconv.Itoa(port), "--name", "ext", "--images", images)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	out := &testenv.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("kube32 node:\n%s", out.String())
		}
	})
	waitReadyPods(t, c, "a", "ext")

	testpods.Contains(t, relayVia(t, c.PodURL(), "a", "call GET http://ext/ 0 4096\n"), "call rc=200 ", "who=ext\n", "chain=default/a\n")
	extURL := "http://" + net.JoinHostPort(ip, strconv.Itoa(port))
	testpods.Contains(t, relayVia(t, extURL, "ext", "call GET http://a/ 0 4096\n"), "call rc=200 ", "who=a\n", "chain=default/ext\n")

	// A node that is gone without a word (its pod still Ready in the
	// store) is unreachable: K32_ERR_IO.
	cmd.Process.Kill()
	<-exited
	testpods.Contains(t, relayVia(t, c.PodURL(), "a", "call GET http://ext/ 0 4096\n"), testpods.CallRC(abi.ErrIO))
}
