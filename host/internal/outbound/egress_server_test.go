package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/kubelet"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// gateway is an API port without a token, with the control plane's halves
// of the gateway and relay mounted (Mount), whose store holds node w
// (InternalIP 127.0.0.2), pod default/b bound to it and pod default/u
// bound to no node.
type gateway struct {
	url   string
	tls   *outbound.TLS
	lines testenv.Lines
	// skew moves the clock of the [EGRESS] lines' limits on (see
	// nextLogInterval).
	skew atomic.Int64
}

// nextLogInterval moves the gateway's log clock one abi.LogRateInterval
// on, so that its next [EGRESS] line is let through without waiting.
func (g *gateway) nextLogInterval() { g.skew.Add(int64(abi.LogRateInterval)) }

func (g *gateway) now() time.Time { return time.Now().Add(time.Duration(g.skew.Load())) }

func (g *gateway) log() string {
	return g.lines.String()
}

func startGateway(t *testing.T, ca *testtls.CA, egress bool) *gateway {
	t.Helper()
	s := store.New()
	s.Apply(&corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "w"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.2"}}}})
	for name, node := range map[string]string{"b": "w", "u": ""} {
		s.Apply(&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.PodSpec{NodeName: node}})
	}
	g := &gateway{}
	policy, err := outbound.NewPolicy(kubelet.StoreSource(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	g.tls = &outbound.TLS{Roots: ca.Pool(), Sessions: 1, LogClock: g.now, Policy: policy}
	port := apiauth.NewMux(apiauth.New(apiauth.Config{}))
	if egress {
		outbound.Mount(port, s, &outbound.Gateway{TLS: g.tls, LogClock: g.now, Logf: g.lines.Logf}, outbound.NewUplink(true, "", nil))
	}
	g.url = testhttp.Serve(t, "127.0.0.1", port).URL
	return g
}

// from is an HTTP client whose connections come from ip.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// egress posts a gateway request for GET url.
func egress(ctx context.Context, client *http.Client, g *gateway, query, url string) (*http.Response, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.url+abi.EgressPath+"?"+query,
		strings.NewReader("GET "+url+" HTTP/1.1\r\nX-A: 1\r\n\r\n"))
	req.Header.Set("Content-Type", "message/http")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestEgressGatewayWithoutToken(t *testing.T) {
	ca := testtls.NewCA(t)
	host := testtls.Serve(t, "127.0.0.67", ca.Issue(t, testtls.Leaf{IPs: []string{"127.0.0.67"}}), 0, 0,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Host", "yes")
			w.WriteHeader(202)
			fmt.Fprintf(w, "x-a=%s %s", r.Header.Get("X-A"), strings.Repeat("z", 100))
		}))
	g := startGateway(t, ca, true)
	ctx := context.Background()

	resp, body, err := egress(ctx, from("127.0.0.2"), g, "pod=default/b&timeout=5000&limit=5", "https://"+host+"/")
	if err != nil || resp.StatusCode != 202 || resp.Header.Get(abi.HeaderEgressResult) != "202" || resp.Header.Get("X-Host") != "yes" ||
		body != "x-a=1 " || resp.ContentLength != -1 {
		t.Fatalf("from the pod's node: %v %q, %v", resp, body, err)
	}
	for _, tt := range []struct{ from, query, log string }{
		{"127.0.0.1", "pod=default/b&timeout=5000&limit=5", "gateway refused 127.0.0.1 (pod default/b): not the InternalIP of node w"},
		{"127.0.0.2", "pod=default/u&timeout=5000&limit=5", "gateway refused 127.0.0.2 (pod default/u): the pod is not bound to a node"},
		{"127.0.0.2", "pod=default/x&timeout=5000&limit=5", "gateway refused 127.0.0.2 (pod default/x): no such pod"},
	} {
		g.nextLogInterval() // the line is logged at most once per interval
		resp, _, err := egress(ctx, from(tt.from), g, tt.query, "https://"+host+"/")
		if err != nil || resp.StatusCode != 403 || resp.Header.Get(abi.HeaderEgressResult) != testpods.Code(abi.ErrPerm) {
			t.Errorf("%s from %s: %v, %v", tt.query, tt.from, resp, err)
		}
		if !strings.Contains(g.log(), "[EGRESS] "+tt.log) {
			t.Errorf("log lacks %q:\n%s", tt.log, g.log())
		}
	}
	resp, _, err = egress(ctx, from("127.0.0.2"), g, "pod=default/b&timeout=5000&limit=5", "http://"+host+"/")
	if err != nil || resp.StatusCode != 400 || resp.Header.Get(abi.HeaderEgressResult) != testpods.Code(abi.ErrInval) {
		t.Errorf("an http:// URL: %v, %v", resp, err)
	}
}

func TestEgressGatewayFreesTheSessionWhenTheWorkerLeaves(t *testing.T) {
	ca := testtls.NewCA(t)
	arrived := make(chan struct{}, 1)
	host := testtls.Serve(t, "127.0.0.68", ca.Issue(t, testtls.Leaf{IPs: []string{"127.0.0.68"}}), 0, 0,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				arrived <- struct{}{}
				<-r.Context().Done()
				return
			}
			io.WriteString(w, "fast")
		}))
	g := startGateway(t, ca, true) // one session
	client := from("127.0.0.2")
	ctx, cancel := context.WithCancel(context.Background())
	held := make(chan error, 1)
	go func() {
		_, _, err := egress(ctx, client, g, "pod=default/b&timeout=60000&limit=5", "https://"+host+"/slow")
		held <- err
	}()
	<-arrived
	resp, _, err := egress(context.Background(), client, g, "pod=default/b&timeout=5000&limit=5", "https://"+host+"/")
	if err != nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || resp.Header.Get(abi.HeaderEgressResult) != testpods.Code(abi.ErrBusy) {
		t.Fatalf("with the session held: %v, %v", resp, err)
	}
	cancel() // the worker closes the connection
	<-held
	testenv.EventuallyNil(t, "the session to be freed", func() error {
		resp, body, err := egress(context.Background(), client, g, "pod=default/b&timeout=5000&limit=5", "https://"+host+"/")
		if err == nil && resp.StatusCode == 200 && body == "fast" {
			return nil
		}
		return fmt.Errorf("%v %q, %v", resp, body, err)
	})
}

func TestNoEgressGatewayIs404(t *testing.T) {
	g := startGateway(t, testtls.NewCA(t), false)
	resp, _, err := egress(context.Background(), from("127.0.0.2"), g, "pod=default/b&timeout=5000&limit=5", "https://127.0.0.1/")
	if err != nil || resp.StatusCode != 404 || resp.Header.Get(abi.HeaderEgressResult) != "" {
		t.Fatalf("%v, %v", resp, err)
	}
	// The worker's client reports it as K32_ERR_NOTSUP.
	tg, _ := outbound.ParseTarget("https://127.0.0.1/", "default")
	_, err = (&outbound.Egress{API: g.url, NodeIP: "127.0.0.2"}).CallHTTPS(context.Background(), tg,
		pod.Call{From: "default/b", Method: "GET", URL: "https://127.0.0.1/", RespCap: 10})
	var code abi.Errno
	if !errors.As(err, &code) || code != abi.ErrNotSup {
		t.Fatalf("worker client: %v", err)
	}
}
