package cluster

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/kubelet"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// respflood is internal/testkit/testpods/c/respflood.c labelled app=<name>, pinned
// to node.
func respflood(name, node string) manifest.Object {
	return manifest.Object{Obj: pinnedPod(name, name, node, "respflood", corev1.Container{})}
}

// slowClientTimeout is the callback deadline of these tests, which is also
// how long a client may leave a pod's answer untaken.
const slowClientTimeout = 2 * time.Second

// startRespflood runs a control plane with respflood pod "flood" behind
// the Ingress ("/") and a worker with respflood pod "wflood", behind the
// Ingress for host wflood.test.
func startRespflood(t *testing.T) *Cluster {
	t.Helper()
	return startReady(t, Options{Images: os.DirFS(fixtureImages(t, "respflood")), Nodes: 2, HandlerTimeout: slowClientTimeout,
		Objects: []manifest.Object{respflood("flood", ControlPlaneName), respflood("wflood", w1), svc("flood"), svc("wflood"),
			routes(map[string]string{"/": "flood"}), hostIngress("wflood.test", "wflood")}}, "flood", "wflood")
}

// hostIngress sends every path of host to Service name, port 80.
func hostIngress(host, name string) manifest.Object {
	prefix := networkingv1.PathTypePrefix
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name,
					Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
	}}
}

// hugeAnswer is larger than what the kernel's socket buffers of a
// loopback connection take from a client that reads nothing.
const hugeAnswer = 32 << 20

// A client that asks for a large answer and reads nothing costs the pod
// neither a restart nor a 504 (docs/serve.md, "Hostile clients"): the
// node drops the client after one callback deadline of waiting, the pod's
// k32_resp_write gets K32_ERR_IO, the callback ends as the pod decides,
// and the next request is served. On the Ingress (a pod of the control
// plane, in-process; a pod of a worker, proxied, where the Ingress drops a
// client that takes no write for httplimit.WriteStallTimeout) and on the
// pod ports of both nodes.
func TestSlowClientNeverCostsAPod(t *testing.T) {
	c := startRespflood(t)
	paths := []struct {
		name, base, host, pod string
		node                  *kubelet.Kubelet
	}{
		{"ingress", c.IngressURL(), "x", "flood", c.Kubelet},
		{"ingress to a worker", c.IngressURL(), "wflood.test", "wflood", c.Workers[0].Kubelet},
		{"control plane pod port", c.PodURL(), "x", "flood", c.Kubelet},
		{"worker pod port", c.Workers[0].PodURL(), "x", "wflood", c.Workers[0].Kubelet},
	}
	for _, tc := range paths {
		name := tc.pod
		var headers []string
		if tc.base != c.IngressURL() {
			headers = []string{abi.HeaderPod + ": default/" + name}
		}
		headers = append(headers, "Host: "+tc.host)
		p, ok := tc.node.Pod("default", name)
		if !ok {
			t.Fatalf("%s: no pod %s", tc.name, name)
		}
		logsBefore := len(p.Logs())

		conn := dialUnread(t, tc.base)
		if _, err := fmt.Fprintf(conn, "GET /big?%d HTTP/1.1\r\n%s\r\n\r\n", hugeAnswer, strings.Join(headers, "\r\n")); err != nil {
			t.Fatal(err)
		}
		// The pod learns that the client is gone: its writes fail with K32_ERR_IO.
		want := fmt.Sprintf("big wrote=0 err=%d", abi.ErrIO)
		testenv.EventuallyNil(t, tc.name+": the pod to log "+want, func() error {
			for _, l := range p.Logs()[logsBefore:] {
				if l.Text == want {
					return nil
				}
				if strings.Contains(l.Text, "big wrote=") || strings.Contains(l.Text, "exceeded") {
					return fmt.Errorf("the pod logged %q", l.Text)
				}
			}
			return errors.New("not yet")
		})
		// The slow connection is closed: reading it now ends, short of the answer.
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		n, err := io.Copy(io.Discard, conn)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("%s: the slow client's connection is still open after %d bytes", tc.name, n)
		}
		if n >= hugeAnswer {
			t.Fatalf("%s: the slow client got the whole answer (%d bytes)", tc.name, n)
		}

		// The next request is served by the same instance: no restart, no 504.
		r := testhttp.Get(t, tc.base+"/next", headers...)
		if r.Status != http.StatusOK || r.Body != "ok\n" {
			t.Fatalf("%s: the next request: %s", tc.name, r)
		}
		if s := p.Status(); s.RestartCount != 0 {
			t.Fatalf("%s: the pod restarted %d times: %+v", tc.name, s.RestartCount, s)
		}
		for _, l := range p.Logs()[logsBefore:] {
			if strings.Contains(l.Text, "exceeded") || strings.Contains(l.Text, "restart") {
				t.Fatalf("%s: the pod's log says %q", tc.name, l.Text)
			}
		}
	}
	for _, e := range c.Activity.Recent() {
		if e.Kind == activity.KindRequest && e.Status == http.StatusGatewayTimeout {
			t.Fatalf("the Ingress counted a 504: %+v", e)
		}
	}
	for _, name := range []string{"flood", "wflood"} {
		if cs := getPod(t, c.Store, name).Status.ContainerStatuses; len(cs) != 1 || cs[0].RestartCount != 0 {
			t.Fatalf("pod %s container statuses %+v, want 0 restarts", name, cs)
		}
	}
}

// dialUnread opens a connection to base that never reads, with a small
// receive buffer, so that the server's writes fill it soon.
func dialUnread(t *testing.T, base string) *net.TCPConn {
	t.Helper()
	tc := dial(t, base).(*net.TCPConn)
	_ = tc.SetReadBuffer(4096)
	return tc
}

// A pod that queues more response headers than the node holds for one
// answer gets K32_ERR_TOOBIG past abi.RespHeadersMax headers or
// abi.RespHeaderBytesMax bytes, and the answer carries exactly the headers
// accepted: the node holds at most those bytes for it, however many the
// pod asks for. (The attack of 12,000 headers of 64 KiB in one k32_handle.)
func TestResponseHeadersAreBounded(t *testing.T) {
	c := startRespflood(t)
	for _, tc := range []struct {
		name        string
		base        string
		headers     []string
		count, size int
	}{
		{"12000 headers of 64 KiB, Ingress", c.IngressURL(), nil, 12000, 64 << 10},
		{"12000 headers of 1 KiB, Ingress", c.IngressURL(), nil, 12000, 1 << 10},
		{"12000 headers of 1 KiB, Ingress to a worker", c.IngressURL(), []string{"Host: wflood.test"}, 12000, 1 << 10},
		{"12000 headers of 1 KiB, worker pod port", c.Workers[0].PodURL(), []string{abi.HeaderPod + ": default/wflood"}, 12000, 1 << 10},
		{"12000 headers of 10 B, pod port", c.PodURL(), []string{abi.HeaderPod + ": default/flood"}, 12000, 10},
		{"50 headers of 100 B", c.IngressURL(), nil, 50, 100},
	} {
		accepted, bytes := 0, 0
		for i := range tc.count {
			size := len(fmt.Sprintf("X-Flood-%d", i)) + tc.size + len(": \r\n")
			if accepted < abi.RespHeadersMax && bytes+size <= abi.RespHeaderBytesMax {
				accepted, bytes = accepted+1, bytes+size
			}
		}
		wantErr := 0
		if accepted < tc.count {
			wantErr = int(abi.ErrTooBig)
		}
		want := fmt.Sprintf("accepted=%d refused=%d err=%d\n", accepted, tc.count-accepted, wantErr)
		r := testhttp.Get(t, fmt.Sprintf("%s/headers?%d,%d", tc.base, tc.count, tc.size), tc.headers...)
		if r.Status != http.StatusOK || r.Body != want {
			t.Fatalf("%s: %s, want 200 %q", tc.name, r, want)
		}
		got := 0
		for name, values := range r.Header {
			if strings.HasPrefix(name, "X-Flood-") {
				got += len(values)
				if len(values[0]) != tc.size {
					t.Fatalf("%s: header %s of %d bytes, want %d", tc.name, name, len(values[0]), tc.size)
				}
			}
		}
		if got != accepted {
			t.Fatalf("%s: the answer carries %d X-Flood headers, want the %d accepted", tc.name, got, accepted)
		}
	}
}
