package cluster

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// TestEverySpellingOfLoopbackIsDeniedUnderExceptLoopback checks
// docs/networkpolicy.md, "Which address a policy sees", under serve: with
// "ipBlock 0.0.0.0/0 except 127.0.0.0/8", a pod on the control plane
// (direct connections) and one on a worker (http:// through the control
// plane's relay, https:// through its egress gateway) get K32_ERR_PERM for
// every way of writing the local host, and the node logs [NETPOL] (the
// gateway its refusal) with the address the call would have reached.
// Without the policy the same URLs reach the host on 127.0.0.1, so the
// refusals are the policy's.
func TestEverySpellingOfLoopbackIsDeniedUnderExceptLoopback(t *testing.T) {
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "local host") }))
	defer host.Close()
	_, port, _ := net.SplitHostPort(host.Listener.Addr().String())
	ca := testtls.NewCA(t)
	tlsHost := testtls.Serve(t, "127.0.0.1", ca.Issue(t, testtls.Leaf{IPs: []string{"127.0.0.1"}, DNSNames: []string{"localhost"}}), 0, 0,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "local host") }))
	_, tlsPort, _ := net.SplitHostPort(tlsHost)

	logs := &lineLog{}
	objs := []manifest.Object{relay("a", "a", ControlPlaneName), relay("b", "b", w1)}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), Objects: objs, Nodes: 2, Token: testToken,
		HandlerTimeout: 10 * time.Second, EgressCA: ca.WritePEM(t),
		Logf:   logs.Logf,
		PodLog: logs.podLine}, "a", "b")
	podURL := map[string]string{"a": c.PodURL(), "b": c.Workers[0].PodURL()}
	callFrom := func(p, url string) string {
		return relayVia(t, podURL[p], p, "call GET "+url+" 5000 4096\n")
	}
	spellings := []string{"0.0.0.0", "0", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.0.0.1"}
	var urls []string
	for _, h := range spellings {
		urls = append(urls, "http://"+h+":"+port+"/", "https://"+h+":"+tlsPort+"/")
	}
	urls = append(urls, "http://app.localhost:"+port+"/", "https://localhost:"+tlsPort+"/")

	for _, p := range []string{"a", "b"} {
		for _, url := range urls {
			testpods.Contains(t, callFrom(p, url), "call rc=200 ", "local host")
		}
		for _, url := range []string{"http://[::]:" + port + "/", "http://[::ffff:127.0.0.1]:" + port + "/", "http://127.0.0.256:" + port + "/"} {
			testpods.Contains(t, callFrom(p, url), testpods.CallRC(abi.ErrInval))
		}
	}

	c.Store.Apply(&networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "no-loopback"},
		Spec: networkingv1.NetworkPolicySpec{
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
				{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"127.0.0.0/8"}}}}}},
		},
	})
	// A policy change reaches a worker within about 7 s.
	testenv.EventuallyNil(t, "the policy to reach the worker", func() error {
		if out := callFrom("b", urls[0]); !strings.Contains(out, testpods.CallRC(abi.ErrPerm)) {
			return fmt.Errorf("got:\n%s", out)
		}
		return nil
	})
	for _, p := range []string{"a", "b"} {
		for _, url := range urls {
			testpods.Contains(t, callFrom(p, url), testpods.CallRC(abi.ErrPerm))
		}
	}
	logs.waitLog(t, "[default/a] [NETPOL] default/a -> 127.0.0.1:"+port+" denied: no egress rule of NetworkPolicy default/no-loopback allows TCP to 127.0.0.1:"+port)
	logs.waitLog(t, "[default/b] [NETPOL] default/b -> 127.0.0.1:"+port+" denied: ")
	logs.waitLog(t, "[EGRESS] gateway refused 127.0.0.2 (pod default/b): NetworkPolicy: 127.0.0.1:"+tlsPort+" denied: ")
}
