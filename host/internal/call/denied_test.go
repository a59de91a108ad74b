package call

import (
	"context"
	"errors"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// "A call to a Service goes to one of its pods that the policies allow.
// When they allow none ... the call returns K32_ERR_PERM".
func TestClusterCallsOnlyAllowedPods(t *testing.T) {
	c := &Cluster{Node: "n1",
		Objects: objects(t, service.Backend{Namespace: "default", Name: "p1", Node: "n1"}, service.Backend{Namespace: "default", Name: "p2", Node: "n1"}),
		Local:   localPods{"default/p1": true, "default/p2": true}}
	c.Policy = policy(t, testPolicies{egressTo("p2")})
	call := pod.Call{From: "default/a", Chain: []string{"default/a"}, Method: "GET", RespCap: 100}
	for i := 0; i < 4; i++ {
		res, err := c.CallService(context.Background(), callTarget(t, "http://svc/"), call)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Header.Get("X-Pod"); got != "p2" {
			t.Errorf("call %d reached %s, want p2", i, got)
		}
	}
	c.Policy = policy(t, testPolicies{egressTo("nobody")})
	_, err := c.CallService(context.Background(), callTarget(t, "http://svc:80/"), call)
	wantErrno(t, err, abi.ErrPerm)
	var denied *outbound.DeniedError
	if !errors.As(err, &denied) || denied.Error() != "default/a -> svc.default:80 denied: none of its 2 pods is allowed; default/p1: no egress rule of NetworkPolicy default/to-nobody allows TCP to pod default/p1 (127.0.0.1:80)" {
		t.Errorf("error %v, want a outbound.DeniedError for the [NETPOL] line", err)
	}
}
