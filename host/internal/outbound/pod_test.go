package outbound

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// buildTransportPod builds testdata/transportpod, a Go pod using
// net/http's client over k32http.Transport, with the SDK of this checkout
// (a go.work, GOPROXY=off), once per test run through the fixture cache:
// the key is the pod's and the SDK's files and the go command's identity.
func buildTransportPod(t *testing.T) []byte {
	t.Helper()
	goTool := testenv.Tool(t, "go")
	const dir, sdkDir = "testdata/transportpod", "../../../sdk/go"
	// pod_test.go itself is in the key: goBuildPod decides the flags.
	key := testenv.NewKey(t, "call-transportpod").File("pod_test.go").Tool(goTool, "version").Add("GOEXPERIMENT", os.Getenv("GOEXPERIMENT")).
		Tree(dir, nil).Tree(sdkDir, func(rel string, isDir bool) bool { return isDir || !strings.HasSuffix(rel, "_test.go") })
	return testenv.Cached(t, key, testenv.IsWasm, func() ([]byte, error) { return goBuildPod(goTool, dir, sdkDir) })
}

// goBuildPod builds the Go pod in dir for wasip1 with the SDK in sdkDir.
func goBuildPod(goTool, dir, sdkDir string) ([]byte, error) {
	dir, _ = filepath.Abs(dir)
	sdkDir, _ = filepath.Abs(sdkDir)
	tmp, err := os.MkdirTemp("", "k32-call-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "go.work")
	if err := os.WriteFile(work, []byte("go 1.24\n\nuse (\n\t"+sdkDir+"\n\t"+dir+"\n)\n"), 0o644); err != nil {
		return nil, err
	}
	out := filepath.Join(tmp, "pod.wasm")
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "GOFLAGS", "GOWORK", "GOOS", "GOARCH", "GOPROXY", "GOTOOLCHAIN", "CGO_ENABLED":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "GOWORK="+work, "GOOS=wasip1", "GOARCH=wasm", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building pod %s: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared: %v\n%s", dir, err, msg)
	}
	return os.ReadFile(out)
}

// TestGoPodCallsOutsideThroughTransport runs a real Go pod whose net/http
// client uses k32http.Transport, with Caller as its node's k32_http_call,
// against local hosts: redirects followed by the pod's client, the
// forged X-Kube32-Pod header dropped, and the codes of failed calls
// reaching the pod as k32.Errno.
func TestGoPodCallsOutsideThroughTransport(t *testing.T) {
	wasm := buildTransportPod(t)
	final := startServer(t, loopback(60), func(c net.Conn, r *received) {
		body := "hello " + r.header.Get("X-Test") + " kube32-pod=" + r.header.Get("X-Kube32-Pod")
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nX-Served-By: final\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		io.Copy(io.Discard, c)
	})
	_, finalPort, _ := net.SplitHostPort(final.addr)
	redirect := startServer(t, loopback(61), answer("HTTP/1.1 302 Found\r\nLocation: http://final.test:"+finalPort+"/end\r\nContent-Length: 0\r\n\r\n"))
	_, redirectPort, _ := net.SplitHostPort(redirect.addr)
	slow := startServer(t, loopback(62), func(c net.Conn, _ *received) { io.Copy(io.Discard, c) })
	refused, _ := net.Listen("tcp4", loopback(63)+":0")
	refused.Close()

	caller := &Caller{Outside: &Outside{Policy: noPolicies,
		HeadLimit: abi.WorkerHeadLimit,
		Resolver:  fakeDNS(t, loopback(53), map[string]string{"final.test": loopback(60), "redirect.test": loopback(61)}),
	}}
	p := pod.New(pod.Config{
		Namespace: "default", Name: "transportpod", Module: wasm, MemoryLimit: 8 << 20,
		Capabilities: []string{"SERVICE_CALL"}, Caller: caller,
	})
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("start pod: %v (status %+v)", err, p.Status())
	}
	t.Cleanup(p.Stop)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)

	tests := []struct {
		name  string
		query url.Values
		want  string
	}{
		{"redirect followed by the pod's client", url.Values{"url": {"http://redirect.test:" + redirectPort + "/start"}},
			"status=200\nserved-by=final\nbody=hello from-pod kube32-pod=\n"},
		{"body over the buffer", url.Values{"url": {"http://final.test:" + finalPort + "/"}, "buffer": {"4"}}, "err=K32_ERR_TOOBIG\n"},
		{"no answer before the request's deadline", url.Values{"url": {"http://" + slow.addr + "/"}, "timeout": {"200ms"}}, "err=K32_ERR_TIMEOUT\n"},
		{"refused port", url.Values{"url": {"http://" + refused.Addr().String() + "/"}}, "err=K32_ERR_CONNREFUSED\n"},
		{"name that does not resolve", url.Values{"url": {"http://nothing.invalid/"}}, "err=K32_ERR_NOENT\n"},
		{"Service on a node without Services", url.Values{"url": {"http://echo/"}}, "err=K32_ERR_NOENT\n"},
		{"https:// on a node without TLS", url.Values{"url": {"https://final.test/"}}, "err=K32_ERR_NOTSUP\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/?" + tt.query.Encode())
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != tt.want {
				t.Errorf("pod answered %d %q, want %q", resp.StatusCode, body, tt.want)
			}
		})
	}
}
