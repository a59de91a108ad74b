package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// loopbackSpellings are ways of writing the local host in a URL
// (docs/networkpolicy.md, "Which address a policy sees").
var loopbackSpellings = []string{"0.0.0.0", "0", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "127.0.0.1", "app.localhost"}

// runNetDest calls a host on 127.0.0.1 with every spelling of loopback
// from the relay pods web-cp (control plane, direct) and b (worker:
// http:// through the relay, https:// through the egress gateway), first
// without a policy, then under "ipBlock 0.0.0.0/0 except 127.0.0.0/8",
// and reports how many calls reached the host and how many were denied.
func runNetDest(s *server) []row {
	const fault = "0.0.0.0 etc. to loopback under except 127/8"
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return failed(fault, err)
	}
	local := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "local") })}
	go local.Serve(l)
	defer local.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())

	for deadline := time.Now().Add(time.Minute); !podReady(s.c, "web-cp") || !podReady(s.c, "b"); {
		if time.Now().After(deadline) {
			return failed(fault, fmt.Errorf("pods web-cp and b not ready within a minute"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	callers := []struct{ name, pod, podURL string }{
		{"control plane", "web-cp", s.c.PodURL()},
		{"worker", "b", s.c.Workers()[0].PodURL()},
	}
	// calls returns the results of the calls of one caller with scheme,
	// counted by "rc=..." (https:// to the plain host: K32_ERR_TLS when
	// the connection is made).
	calls := func(podURL, pod, scheme string) (map[string]int, error) {
		codes := map[string]int{}
		for _, h := range loopbackSpellings {
			out, err := testpods.Relay(podURL, "default/"+pod, fmt.Sprintf("call GET %s://%s:%s/ 2000 64\n", scheme, h, port))
			if err != nil {
				return nil, err
			}
			codes[callRC(out)]++
		}
		return codes, nil
	}
	var rows []row
	for _, c := range callers {
		codes, err := calls(c.podURL, c.pod, "http")
		if err != nil {
			return append(rows, failed(fault, err)...)
		}
		rows = append(rows, row{fault, c.name + ", no policy: http:// reached 127.0.0.1",
			fmt.Sprintf("%d/%d", codes["rc=200"], len(loopbackSpellings))})
	}

	key := host.Key{Kind: "NetworkPolicy", Namespace: "default", Name: "bench-no-loopback"}
	err = s.c.ApplyObject(&networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"b", "web"}}}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
				{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"127.0.0.0/8"}}}}}},
		},
	})
	if err != nil {
		return append(rows, failed(fault, err)...)
	}
	// A policy change reaches a worker within about 7 s: wait for it to
	// deny, and on the way out, for its deletion to reach the worker too,
	// so that the faults after this one run without it.
	perm := "rc=" + testpods.Code(abi.ErrPerm) + " " + abi.ErrPerm.Error()
	workerSees := func(want func(rc string) bool) bool {
		for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(200 * time.Millisecond) {
			out, err := testpods.Relay(s.c.Workers()[0].PodURL(), "default/b", "call GET http://127.0.0.1:"+port+"/ 2000 64\n")
			if err == nil && want(callRC(out)) {
				return true
			}
		}
		return false
	}
	defer func() {
		s.c.Delete(key)
		workerSees(func(rc string) bool { return rc == "rc=200" })
	}()
	if !workerSees(func(rc string) bool { return rc == perm }) {
		return append(rows, row{fault, "policy reached the worker", "not within 30 s"})
	}
	for _, c := range callers {
		for _, scheme := range []string{"http", "https"} {
			codes, err := calls(c.podURL, c.pod, scheme)
			if err != nil {
				return append(rows, failed(fault, err)...)
			}
			var other []string
			for rc, n := range codes {
				if rc != perm {
					other = append(other, fmt.Sprintf("%s x%d", rc, n))
				}
			}
			value := fmt.Sprintf("%d/%d", codes[perm], len(loopbackSpellings))
			if len(other) > 0 {
				value += " (also " + strings.Join(other, ", ") + ")"
			}
			rows = append(rows, row{fault, c.name + ", " + scheme + "://: denied (K32_ERR_PERM)", value})
		}
	}
	return rows
}
