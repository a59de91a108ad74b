package kubelet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/call"
	"github.com/kube32/kube32/host/internal/lograte"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
)

// refusals writes the node's [CALL] lines about one pod's refused calls
// (abi.LogCallNoCapability, abi.LogCallNoReadyPod), at most one per
// abi.LogRateInterval for the pod, so that a pod calling in a loop costs
// the node one line a second. Like [NETPOL], they are the node's lines:
// kubectl logs does not show them.
type refusals struct {
	k     *Kubelet
	key   store.Key
	lines lograte.Limiter
}

// capability is pod.Config.Refused.
func (r *refusals) capability(function, capability string) {
	r.log(abi.LogCallNoCapability, r.key.Namespace+"/"+r.key.Name, function, capability)
}

func (r *refusals) log(format string, args ...any) {
	if r.k.cfg.Log == nil || !r.lines.Allow() {
		return
	}
	line := pod.Line{Time: time.Now(), Stream: "k32", Level: 2, Text: fmt.Sprintf(format, args...)}
	r.k.cfg.Log(r.key.Namespace, r.key.Name, line)
}

// refusalLogger is the pod.Caller of one pod: the node's caller, and the
// [CALL] line of a call to a Service with no ready pod.
type refusalLogger struct {
	caller   pod.Caller
	refusals *refusals
}

// HTTPCall implements pod.Caller.
func (l *refusalLogger) HTTPCall(ctx context.Context, c pod.Call) (pod.CallResult, error) {
	res, err := l.caller.HTTPCall(ctx, c)
	var noReady *call.NoReadyPodError
	if errors.As(err, &noReady) {
		l.refusals.log(abi.LogCallNoReadyPod, noReady.From, noReady.Target)
	}
	return res, err
}
