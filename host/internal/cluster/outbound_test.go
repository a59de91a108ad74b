package cluster

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// TestOneDenyingPolicyRefusesEveryWayOut checks the node's edge
// (host/internal/outbound): one NetworkPolicy that denies the egress of a
// pod refuses every way out of it, on the control plane and on a worker —
// a Service on the same node and on another, a host outside over http://
// and https://, a worker's http:// through the relay and its https://
// through the egress gateway (docs/networkpolicy.md, "Enforcement and
// propagation": every call of a selected pod is checked, and a denied one
// returns K32_ERR_PERM).
func TestOneDenyingPolicyRefusesEveryWayOut(t *testing.T) {
	ca := testtls.NewCA(t)
	tlsHost := testtls.Serve(t, "127.0.0.71", ca.Issue(t, testtls.Leaf{IPs: []string{"127.0.0.71"}}), 0, 0,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tls host") }))
	plainHost := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain host") }))
	defer plainHost.Close()

	logs := &lineLog{}
	// a and b call (both app=caller); a2 and b2 are the Services called.
	objs := []manifest.Object{relay("a", "caller", ControlPlaneName), relay("a2", "a2", ControlPlaneName),
		relay("b", "caller", w1), relay("b2", "b2", w1), svc("a2"), svc("b2")}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), Objects: objs, Nodes: 2, Token: testToken,
		HandlerTimeout: 10 * time.Second, EgressCA: ca.WritePEM(t),
		Logf:   logs.Logf,
		PodLog: logs.podLine}, "a", "a2", "b", "b2")

	podURL := map[string]string{"a": c.PodURL(), "b": c.Workers[0].PodURL()}

	ways := []struct {
		way, from, url, answer string
	}{
		{"a Service on the same node", "a", "http://a2/", "who=a2\n"},
		{"a Service on another node", "a", "http://b2/", "who=b2\n"},
		{"a host outside over http://", "a", plainHost.URL + "/", "plain host"},
		{"a host outside over https://", "a", "https://" + tlsHost + "/", "tls host"},
		{"a worker's http:// through the relay", "b", plainHost.URL + "/", "plain host"},
		{"a worker's https:// through the egress gateway", "b", "https://" + tlsHost + "/", "tls host"},
	}
	call := func(from, url string) string {
		return relayVia(t, podURL[from], from, "call GET "+url+" 5000 4096\n")
	}
	for _, w := range ways {
		testpods.Contains(t, call(w.from, w.url), "call rc=200 ", w.answer)
	}

	c.Store.Apply(denyEgress("callers-closed", "caller"))
	for _, w := range ways {
		// A policy change reaches a worker within about 7 s.
		testenv.EventuallyNil(t, w.way+" to be refused", func() error {
			if out := call(w.from, w.url); !strings.Contains(out, testpods.CallRC(abi.ErrPerm)) {
				return fmt.Errorf("%s from %s: %s", w.url, w.from, out)
			}
			return nil
		})
	}
	for _, line := range []string{"[default/a] [NETPOL] default/a -> ", "[default/b] [NETPOL] default/b -> ", "[EGRESS] gateway refused "} {
		logs.waitLog(t, line)
	}
}
