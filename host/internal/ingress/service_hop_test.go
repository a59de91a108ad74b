package ingress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// The requests to pods on workers, through the node hop
// (host/internal/nodehop), as docs/nodes.md and docs/ingress.md describe
// them.

// workerNode is Node name whose pod server listens on l.
func workerNode(name string, l net.Listener) *corev1.Node {
	a := l.Addr().(*net.TCPAddr)
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: a.IP.String()}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(a.Port)}}}}
}

// podOn is a Running pod app=web named name on node.
func podOn(name string, node *corev1.Node) *corev1.Pod {
	p := pod("default", name, map[string]string{"app": "web"}, corev1.PodRunning)
	p.Spec.NodeName = node.Name
	p.Status.PodIP = node.Status.Addresses[0].Address
	return p
}

// listen listens on ip, port 0.
func listen(t *testing.T, ip string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// serveNode serves h as the pod server on l.
func serveNode(t *testing.T, l net.Listener, h http.HandlerFunc) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
}

// startWorkerRoute serves "/" of any host to Service web, whose pods are
// pods, on the workers nodes.
func startWorkerRoute(t *testing.T, nodes []*corev1.Node, pods ...*corev1.Pod) *env {
	t.Helper()
	objs := []runtime.Object{ingress("default", "site", nil, rule("", toService(prefix, "/", "web"))), service("default", "web")}
	for _, n := range nodes {
		objs = append(objs, n)
	}
	for _, p := range pods {
		objs = append(objs, p)
	}
	e := start(t, objs...)
	for _, p := range pods {
		e.pods.setDown("default/" + p.Name) // the control plane's kubelet does not run them
	}
	return e
}

// "A pod whose node cannot be reached before a byte of the request is sent
// is skipped for the next" (docs/nodes.md): with one worker down, every
// request, its body included, reaches the pod of the other.
func TestPodOnADownNodeIsSkippedForTheNext(t *testing.T) {
	down := listen(t, "127.0.0.2")
	w1 := workerNode("w1", down)
	down.Close()
	up := listen(t, "127.0.0.3")
	w2 := workerNode("w2", up)
	serveNode(t, up, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "w2 %s %s body=%q", r.Header.Get("X-Kube32-Pod"), r.Method, b)
	})
	e := startWorkerRoute(t, []*corev1.Node{w1, w2}, podOn("web-b", w1), podOn("web-c", w2))
	for i := 0; i < 4; i++ {
		if r := testhttp.Post(t, e.url+"/", "hello"); r.Status != 200 || r.Body != `w2 default/web-c POST body="hello"` {
			t.Errorf("POST %d: %s", i, r)
		}
	}
}

// rawWorker is a pod server on ip that answers its i-th request (from 0,
// over all connections) with answer(i) and then closes the connection when
// the answer starts with "!"; accepted counts its connections.
func rawWorker(t *testing.T, ip string, answer func(i int) string) (net.Listener, *atomic.Int32) {
	t.Helper()
	l := listen(t, ip)
	return l, testhttp.Scripted(t, l, answer)
}

// An answer cut in the middle, once the request was sent, is answered 502
// (docs/nodes.md); its connection is not used again.
func TestWorkerAnswerCutMidwayIs502(t *testing.T) {
	l, accepted := rawWorker(t, "127.0.0.2", func(i int) string {
		if i == 0 {
			return "!HTTP/1.1 200 OK\r\nContent-Le" // and the connection ends
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	})
	w1 := workerNode("w1", l)
	e := startWorkerRoute(t, []*corev1.Node{w1}, podOn("web-b", w1))
	r := e.get(t, "", "/")
	if r.Status != http.StatusBadGateway || !strings.Contains(r.Body, `"error":"backend unavailable"`) || !strings.Contains(r.Body, `"pod":"default/web-b"`) {
		t.Errorf("cut answer: %s, want 502 backend unavailable naming the pod", r)
	}
	for i := 0; i < 2; i++ {
		if r := e.get(t, "", "/"); r.Status != 200 || r.Body != "ok" {
			t.Errorf("GET %d after the cut: %s", i, r)
		}
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections to the node, want 2: the cut one, then one kept alive", n)
	}
}

// An answer of unknown length (an event stream, or chunked text) reaches
// the client piece by piece as the pod writes it, not when it ends.
func TestWorkerStreamedAnswerReachesTheClientBeforeItEnds(t *testing.T) {
	l := listen(t, "127.0.0.2")
	w1 := workerNode("w1", l)
	release := make(chan struct{}, 1) // one token ends one answer
	serveNode(t, l, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.URL.Query().Get("type"))
		io.WriteString(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: two\n\n")
	})
	e := startWorkerRoute(t, []*corev1.Node{w1}, podOn("web-b", w1))
	for _, ct := range []string{"text/event-stream", "text/plain"} {
		streamOnce(t, e, ct, release)
	}
}

// streamOnce asks for an answer of type ct through the Ingress, reads its
// first piece, then lets the pod end it with a token on release.
func streamOnce(t *testing.T, e *env, ct string, release chan<- struct{}) {
	t.Helper()
	released := false
	defer func() {
		if !released {
			release <- struct{}{} // the pod ends, and the test with it
		}
	}()
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A guard against a hang, not a measure: the first piece comes only
	// if the Ingress passes it on before the answer ends.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "GET /?type=%s HTTP/1.1\r\nHost: x\r\n\r\n", ct)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: %v", ct, err)
	}
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString('\n')
	if err != nil || first != "data: one\n" {
		t.Fatalf("%s: first piece %q %v before the answer ended", ct, first, err)
	}
	release <- struct{}{}
	released = true
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != "\ndata: two\n\n" {
		t.Errorf("%s: rest %q %v", ct, rest, err)
	}
}

// The proxy's header rules of ReverseProxy stay (docs/ingress.md): the
// hop-by-hop fields, and those Connection names, are removed both ways;
// the client's forwarding fields and abi.HeaderPod are replaced by the
// proxy's; a HEAD answer keeps its Content-Length.
func TestWorkerHopHeadersAndForwardingFields(t *testing.T) {
	l := listen(t, "127.0.0.2")
	w1 := workerNode("w1", l)
	serveNode(t, l, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "X-Node-Hop")
		w.Header().Set("X-Node-Hop", "1")
		w.Header().Set("Keep-Alive", "timeout=5")
		w.Header().Set("X-Kept", "1")
		fmt.Fprintf(w, "pod=%s hop=%q te=%q fwd=%q xff=%q host=%q proto=%q agent=%q",
			r.Header.Get("X-Kube32-Pod"), r.Header.Get("X-Client-Hop"), r.Header.Get("Te"), r.Header.Get("Forwarded"),
			r.Header.Get("X-Forwarded-For"), r.Header.Get("X-Forwarded-Host"), r.Header.Get("X-Forwarded-Proto"), r.Header.Get("User-Agent"))
	})
	e := startWorkerRoute(t, []*corev1.Node{w1}, podOn("web-b", w1))
	headers := []string{"Connection: X-Client-Hop", "X-Client-Hop: 1", "Te: trailers", "Forwarded: for=6.6.6.6",
		"X-Forwarded-For: 6.6.6.6", "X-Kube32-Pod: other/pod", "User-Agent: agent/1"}
	r := e.get(t, "site.test", "/", headers...)
	want := `pod=default/web-b hop="" te="trailers" fwd="" xff="127.0.0.1" host="site.test" proto="http" agent="agent/1"`
	if r.Status != 200 || r.Body != want {
		t.Errorf("the pod saw %s, want %q", r, want)
	}
	if r.Header.Get("X-Node-Hop") != "" || r.Header.Get("Keep-Alive") != "" || r.Header.Get("X-Kept") != "1" {
		t.Errorf("the client got the header %v: want X-Kept but no hop-by-hop field", r.Header)
	}
	head := e.do(t, http.MethodHead, "site.test", "/", headers...)
	if n, _ := strconv.Atoi(head.Header.Get("Content-Length")); head.Status != 200 || n != len(want) || head.Body != "" {
		t.Errorf("HEAD: %s with Content-Length %q, want 200, %d, no body", head, head.Header.Get("Content-Length"), len(want))
	}
}

// Informational answers reach the client as ReverseProxy passes them on: a
// pod's 103 Early Hints with its Link header, before the final answer,
// which does not carry the hint's fields; a request with Expect:
// 100-continue gets its body to the pod.
func TestWorkerInterimAnswersReachTheClient(t *testing.T) {
	l := listen(t, "127.0.0.2")
	w1 := workerNode("w1", l)
	serveNode(t, l, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "body=%q", b)
			return
		}
		w.Header().Set("Link", "</a.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		io.WriteString(w, "final")
	})
	e := startWorkerRoute(t, []*corev1.Node{w1}, podOn("web-b", w1))
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // a guard against a hang
	br := bufio.NewReader(conn)
	// finalAnswer reads the answers to one request up to the final one,
	// listing the codes and Link headers of the informational ones.
	finalAnswer := func() (string, []string) {
		t.Helper()
		var interim []string
		for {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode < 200 {
				interim = append(interim, fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("Link")))
				continue
			}
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("%d %q link=%q", resp.StatusCode, b, resp.Header.Get("Link")), interim
		}
	}
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	final, interim := finalAnswer()
	if final != `200 "final" link=""` || strings.Join(interim, "|") != "103 </a.css>; rel=preload" {
		t.Errorf("GET: informational %q, then %s", interim, final)
	}
	io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")
	if final, _ := finalAnswer(); final != `200 "body=\"hello\"" link=""` {
		t.Errorf("POST with Expect: 100-continue: %s", final)
	}
}
