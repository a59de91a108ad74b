package cluster

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// TestNetworkPolicyOnAWorker checks the worker's side of "Enforcement and
// propagation": the worker enforces the policies of its pods' namespace,
// "A policy change reaches a worker within about 7 s", and "A worker reads
// a pod behind a Service from the API server when a rule compares its
// labels".
func TestNetworkPolicyOnAWorker(t *testing.T) {
	var logMu sync.Mutex
	var logs []string
	podLog := func(namespace, name string, line pod.Line) {
		logMu.Lock()
		defer logMu.Unlock()
		logs = append(logs, fmt.Sprintf("[%s/%s] %s", namespace, name, line.Text))
	}
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "host") }))
	defer host.Close()

	objs := []manifest.Object{relay("a", "a", ControlPlaneName), relay("b", "b", w1), relay("b2", "b2", w1), svc("a"), svc("b2")}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), Objects: objs, Nodes: 2, Token: testToken,
		HandlerTimeout: 5 * time.Second, PodLog: podLog}, "a", "b", "b2")
	worker := c.Workers[0].PodURL()
	call := func(url string) string { return relayVia(t, worker, "b", "call GET "+url+" 0 4096\n") }
	// eventually polls until the call from b answers with want: a policy
	// change reaches the worker within about 7 s.
	eventually := func(url, want string) {
		t.Helper()
		testenv.EventuallyNil(t, fmt.Sprintf("call %s from b on the worker to answer %q", url, want), func() error {
			if out := call(url); !strings.Contains(out, want) {
				return fmt.Errorf("got:\n%s", out)
			}
			return nil
		})
	}

	testpods.Contains(t, call("http://a/"), "call rc=200 ", "who=a\n")
	testpods.Contains(t, call("http://b2/"), "call rc=200 ", "who=b2\n")
	testpods.Contains(t, call(host.URL+"/"), "call rc=200 ")

	policy := denyEgress("b-egress", "b")
	c.Store.Apply(policy.DeepCopy())
	eventually("http://a/", testpods.CallRC(abi.ErrPerm))
	testpods.Contains(t, call("http://b2/"), testpods.CallRC(abi.ErrPerm))
	testpods.Contains(t, call(host.URL+"/"), testpods.CallRC(abi.ErrPerm))
	logMu.Lock()
	all := strings.Join(logs, "\n")
	logMu.Unlock()
	if !strings.Contains(all, "[default/b] [NETPOL] default/b -> ") {
		t.Errorf("no [NETPOL] line from the worker in:\n%s", all)
	}

	// A rule comparing the labels of the pod behind the Service.
	policy.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
		{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}}}
	c.Store.Apply(policy.DeepCopy())
	eventually("http://a/", "call rc=200 ")
	testpods.Contains(t, call("http://b2/"), testpods.CallRC(abi.ErrPerm))

	c.Store.Delete(store.Key{Kind: "NetworkPolicy", Namespace: "default", Name: "b-egress"})
	eventually("http://b2/", "call rc=200 ")
}
