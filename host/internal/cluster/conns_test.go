package cluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// rawConn is one client connection that the test drives by hand; host is
// the address it dialed, the Host of get and stream (an API port without
// a token answers only its own names, docs/serve.md "Web pages").
type rawConn struct {
	net.Conn
	r    *bufio.Reader
	host string
}

func dialRaw(t *testing.T, base string) *rawConn {
	t.Helper()
	c := dial(t, base)
	u, _ := url.Parse(base)
	return &rawConn{Conn: c, r: bufio.NewReader(c), host: u.Host}
}

// dial opens a TCP connection to the host of base, closed at the end of
// the test.
func dial(t *testing.T, base string) net.Conn {
	t.Helper()
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// openFileLimit raises the process's open-file limit to its hard limit and
// returns it.
func openFileLimit(t *testing.T) uint64 {
	t.Helper()
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Fatal(err)
	}
	if r.Cur < r.Max {
		r.Cur = r.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r)
	}
	return r.Cur
}

// do sends a request head (and body) and reads the answer's head.
func (c *rawConn) do(head string) (*http.Response, error) {
	if _, err := io.WriteString(c, head); err != nil {
		return nil, err
	}
	return http.ReadResponse(c.r, nil)
}

// get sends GET path, which must answer 200, and reads the whole answer.
func (c *rawConn) get(t *testing.T, path string, headers ...string) string {
	t.Helper()
	resp, err := c.do("GET " + path + " HTTP/1.1\r\nHost: " + c.host + "\r\n" + strings.Join(append(headers, ""), "\r\n") + "\r\n")
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s %s", path, resp.Status, b)
	}
	return string(b)
}

// stream sends GET path, which must answer 200, and returns the body.
func (c *rawConn) stream(t *testing.T, path string) *bufio.Reader {
	t.Helper()
	resp, err := c.do("GET " + path + " HTTP/1.1\r\nHost: " + c.host + "\r\n\r\n")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %v %v", path, resp, err)
	}
	return bufio.NewReader(resp.Body)
}

// closedByServer reports whether the server has closed c.
func (c *rawConn) closedByServer() bool {
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	defer c.SetReadDeadline(time.Time{})
	_, err := c.r.ReadByte()
	return err == io.EOF
}

// readUntil reads lines of a stream until one contains want.
func readUntil(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if strings.Contains(line, want) {
			return
		}
		if err != nil {
			t.Fatalf("the stream ended before %q: %v", want, err)
		}
	}
}

// routes is an Ingress that sends each path prefix to a Service, with an
// event stream of topic "room" at /events.
func routes(paths map[string]string) manifest.Object {
	prefix := networkingv1.PathTypePrefix
	var ps []networkingv1.HTTPIngressPath
	for path, service := range paths {
		ps = append(ps, networkingv1.HTTPIngressPath{Path: path, PathType: &prefix,
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: service,
				Port: networkingv1.ServiceBackendPort{Number: 80}}}})
	}
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "routes",
			Annotations: map[string]string{abi.AnnotationEventStream: "/events=room"}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: ps}}}}},
	}}
}

// startRelays runs a control plane with relay pod "a" and a worker with
// relay pod "w", the Ingress sending /a to a and / to w.
func startRelays(t *testing.T, opts Options) *Cluster {
	t.Helper()
	opts.Images = os.DirFS(fixtureImages(t, "relay"))
	opts.Objects = []manifest.Object{relay("a", "a", ControlPlaneName), relay("w", "w", w1), svc("a"), svc("w"),
		routes(map[string]string{"/a": "a", "/": "w"})}
	opts.Nodes = 2
	return startReady(t, opts, "a", "w")
}

// idleConns is how many idle connections the test opens: 3000, or fewer
// when the open-file limit (raised to its hard limit) has no room for
// them, their server side and the cluster's own.
func idleConns(t *testing.T) int {
	limit := openFileLimit(t)
	n := min(3000, int(limit/2)-500)
	if n < 1000 {
		t.Fatalf("the open-file limit %d leaves room for %d connections; the test needs 1000", limit, n)
	}
	return n
}

func TestThousandsOfIdleConnections(t *testing.T) {
	n := idleConns(t)
	// A cap below n: the flood must be served by closing the longest-idle
	// connections, while a watch and an event stream opened before are
	// kept.
	maxConns := n * 2 / 3
	c := startRelays(t, Options{MaxConnections: maxConns})
	watch := dialRaw(t, c.APIURL()).stream(t, "/api/v1/namespaces/default/services?watch=1")
	events := dialRaw(t, c.IngressURL()).stream(t, "/events")

	idle := make([]*rawConn, n)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				idle[i] = dialRaw(t, c.IngressURL())
				resp, err := idle[i].do("GET /idle HTTP/1.1\r\nHost: x\r\n\r\n")
				if err != nil {
					t.Errorf("idle connection %d: %v", i, err)
					continue
				}
				io.Copy(io.Discard, resp.Body)
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		return
	}
	if open := c.conns.Open(); open > maxConns {
		t.Errorf("%d connections open, the cap is %d", open, maxConns)
	}
	testenv.Eventually(t, "the longest-idle connection to be closed", idle[0].closedByServer)

	start := time.Now()
	if got := dialRaw(t, c.IngressURL()).get(t, "/"); !strings.Contains(got, "who=w") {
		t.Errorf("a new client of the Ingress got %q", got)
	}
	t.Logf("a new request with %d idle connections open: %v", min(n, maxConns), time.Since(start))
	dialRaw(t, c.IngressURL()).get(t, "/a")
	dialRaw(t, c.APIURL()).get(t, "/readyz")
	dialRaw(t, c.PodURL()).get(t, "/", abi.HeaderPod+": default/a")
	dialRaw(t, c.Workers[0].PodURL()).get(t, "/", abi.HeaderPod+": default/w")
	if !idle[n-1].closedByServer() {
		idle[n-1].get(t, "/") // the youngest are still open and served
	}

	c.Store.Apply(svc("late").Obj)
	readUntil(t, watch, `"late"`)
	if err := c.Channels.Publish(context.Background(), "test", "room", []byte("after the flood")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, events, "after the flood")
}

func TestIdleTimeoutSparesWatchesAndEventStreams(t *testing.T) {
	c := startRelays(t, Options{limits: httplimit.Limits{IdleTimeout: 200 * time.Millisecond}})
	watch := dialRaw(t, c.APIURL()).stream(t, "/api/v1/namespaces/default/services?watch=1")
	events := dialRaw(t, c.IngressURL()).stream(t, "/events")
	for _, base := range []string{c.IngressURL(), c.APIURL()} {
		idle := dialRaw(t, base)
		idle.get(t, "/readyz")
		testenv.Eventually(t, "an idle connection to "+base+" to be closed", idle.closedByServer)
	}
	c.Store.Apply(svc("late").Obj)
	readUntil(t, watch, `"late"`)
	if err := c.Channels.Publish(context.Background(), "test", "room", []byte("after the idle timeout")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, events, "after the idle timeout")
}

// slowBody starts a POST of a 100 000-byte body to base and sends it one
// byte every 50 ms until the answer comes, which it returns. It returns
// once the server reads the body (its 100 Continue).
func slowBody(t *testing.T, base, path string, headers ...string) <-chan int {
	t.Helper()
	c := dialRaw(t, base)
	head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n" +
		strings.Join(append(headers, ""), "\r\n") + "\r\n"
	resp, err := c.do(head)
	if err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("POST %s%s: %v %v, want 100 Continue", base, path, resp, err)
	}
	status := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			status <- 0
			return
		}
		status <- resp.StatusCode
	}()
	go func() {
		for {
			select {
			case s := <-status:
				status <- s
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	return status
}

func TestSlowBodiesDoNotHoldAPod(t *testing.T) {
	c := startRelays(t, Options{limits: httplimit.Limits{BodyTimeout: 2 * time.Second}})
	type target struct{ what, base, path, pod string }
	targets := []target{
		{"Ingress to the control plane's pod", c.IngressURL(), "/a", "a"},
		{"Ingress to the worker's pod", c.IngressURL(), "/", "w"},
		{"control plane's pod port", c.PodURL(), "/", "a"},
		{"worker's pod port", c.Workers[0].PodURL(), "/", "w"},
	}
	for _, tg := range targets {
		t.Run(tg.what, func(t *testing.T) {
			header := abi.HeaderPod + ": default/" + tg.pod
			var slow []<-chan int
			for range 4 {
				slow = append(slow, slowBody(t, tg.base, tg.path, header))
			}
			start := time.Now()
			resp, err := dialRaw(t, tg.base).do("POST " + tg.path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + header + "\r\n\r\n")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !strings.Contains(string(b), "who="+tg.pod) {
				t.Fatalf("a normal request while 4 bodies trickle: %s %s", resp.Status, b)
			}
			t.Logf("a normal request while 4 bodies trickle: %v", time.Since(start))
			for i, s := range slow {
				if got := <-s; got != http.StatusRequestTimeout {
					t.Errorf("slow body %d: status %d, want 408", i, got)
				}
			}
			big := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n%s\r\n\r\n", tg.path, httplimit.MaxBody+1, header)
			if resp, err := dialRaw(t, tg.base).do(big); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("a body past the cap: %v %v, want 413", resp, err)
			}
		})
	}
}
