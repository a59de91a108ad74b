package outbound

import (
	"context"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// onlyTo is a policy source whose namespace default lets its pods reach
// the one address cidr, and nothing else.
type onlyTo string

func (c onlyTo) Policies(string) ([]*networkingv1.NetworkPolicy, error) {
	return []*networkingv1.NetworkPolicy{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "only"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
				{IPBlock: &networkingv1.IPBlock{CIDR: string(c)}}}}}},
	}}, nil
}
func (onlyTo) CallerLabels(string, string) (map[string]string, bool) {
	return map[string]string{}, true
}
func (onlyTo) NamespaceLabels(context.Context, string) map[string]string { return nil }
func (onlyTo) TargetPod(context.Context, string, string) (*corev1.Pod, error) {
	return nil, errors.New("no pods")
}

// netpolLines collects a Policy's log lines.
type netpolLines struct{ testenv.Lines }

func (l *netpolLines) add(namespace, name string, line pod.Line) {
	l.Add("[" + namespace + "/" + name + "] " + line.Text)
}

// "A denied connection fails with K32_ERR_PERM and the node logs
// [NETPOL] <pod> -> <target> denied: <reason>" (docs/networkpolicy.md):
// the line is the refusal the call ends with, not that of an address of a
// name refused while another one connects, and not one the egress gateway
// logs as its own [EGRESS] line.
func TestPolicyLogsTheRefusalTheCallEndsWith(t *testing.T) {
	s := startServer(t, loopback(91), answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	port := netip.MustParseAddrPort(s.addr).Port()
	denied, allowed := netip.MustParseAddr(loopback(90)), netip.MustParseAddr(loopback(91))
	newPolicy := func(log *netpolLines) *Outside {
		p, err := NewPolicy(onlyTo(loopback(91)+"/32"), log.add)
		if err != nil {
			t.Fatal(err)
		}
		return &Outside{Policy: p}
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()

	log := &netpolLines{}
	o := newPolicy(log)
	conn, err := o.connect(ctx, "default/caller", []netip.Addr{denied, allowed}, int(port))
	if err != nil {
		t.Fatalf("a name with a denied and an allowed address: %v", err)
	}
	conn.Close()
	if got := log.All(); len(got) != 0 {
		t.Fatalf("the call connected, yet the node logged %q", got)
	}
	_, err = o.connect(ctx, "default/caller", []netip.Addr{denied}, int(port))
	wantErrno(t, err, abi.ErrPerm)
	want := "[default/caller] [NETPOL] default/caller -> " + loopback(90) + ":" + strconv.Itoa(int(port)) + " denied: "
	if got := log.All(); len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Fatalf("log %q, want one line starting %q", got, want)
	}

	log = &netpolLines{}
	o = newPolicy(log)
	_, err = o.connect(context.WithValue(ctx, callerLogs{}, true), "default/caller", []netip.Addr{denied}, int(port))
	wantErrno(t, err, abi.ErrPerm)
	if got := log.All(); len(got) != 0 {
		t.Fatalf("a refusal the gateway logs itself: the node logged %q", got)
	}
}

// A part handed no Policy refuses every way out (fail closed).
func TestNilPolicyRefusesEverything(t *testing.T) {
	var p *Policy
	hostErr := p.CheckHost(context.Background(), "default/a", netip.MustParseAddrPort("127.0.0.1:80"))
	allowed, svcErr := p.CheckService(context.Background(), "default/a", "svc.default:80",
		[]service.Backend{{Namespace: "default", Name: "b", Ready: true}})
	for to, err := range map[string]error{"a host": hostErr, "a Service": svcErr} {
		var d *DeniedError
		if !errors.As(err, &d) || !strings.Contains(d.Reason, "no NetworkPolicy source") {
			t.Errorf("%s: %v; want a refusal naming the missing source", to, err)
		}
	}
	if len(allowed) != 0 {
		t.Errorf("a Service: %v allowed", allowed)
	}
}
