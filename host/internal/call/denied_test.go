package call

import (
	"context"
	"errors"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/pod"
)

// "A call to a Service goes to one of its pods that the policies allow.
// When they allow none ... the call returns K32_ERR_PERM".
func TestClusterCallsOnlyAllowedPods(t *testing.T) {
	c := &Cluster{Node: "n1",
		Objects: objects(t, service.Backend{Namespace: "default", Name: "p1", Node: "n1"}, service.Backend{Namespace: "default", Name: "p2", Node: "n1"}),
		Local:   localPods{"default/p1": true, "default/p2": true}}
	allowed := map[string]bool{"default/p2": true}
	c.Allow = func(_ context.Context, from string, b service.Backend) error {
		if from != "default/a" {
			t.Errorf("Allow asked for %q", from)
		}
		if !allowed[b.ID()] {
			return errors.New("not allowed")
		}
		return nil
	}
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
	delete(allowed, "default/p2")
	_, err := c.CallService(context.Background(), callTarget(t, "http://svc:80/"), call)
	wantErrno(t, err, abi.ErrPerm)
	var denied *DeniedError
	if !errors.As(err, &denied) || denied.Error() != "default/a -> svc.default:80 denied: none of its 2 pods is allowed; default/p1: not allowed" {
		t.Errorf("error %v, want a DeniedError for the [NETPOL] line", err)
	}
}
