package kubelet

import (
	"errors"
	"strconv"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
)

// recordCall publishes a pod's k32_http_call on the activity stream: the
// HTTP status it got, or the K32_ERR_* code and why (for a NetworkPolicy
// denial, the reason the [NETPOL] line gives).
func (k *Kubelet) recordCall(c pod.Call, res pod.CallResult, err error) {
	if k.cfg.Activity == nil {
		return
	}
	e := activity.Event{Kind: activity.KindCall, Node: k.cfg.NodeName, From: c.From, Method: c.Method, Target: c.URL,
		Result: strconv.Itoa(res.Status)}
	if err != nil {
		e.Result, e.Reason = "K32_ERR_IO", err.Error()
		var code abi.Errno
		if errors.As(err, &code) {
			e.Result = code.Error()
		}
		var denied *outbound.DeniedError
		if errors.As(err, &denied) {
			e.Denied, e.Reason, e.Target = true, denied.Reason, c.URL+" ("+denied.Target+")"
		}
	}
	k.cfg.Activity.Publish(e)
}
