package call

import (
	"github.com/kube32/kube32/abi"
)

// NoReadyPodError is a call to a Service that selects no ready pod. The
// pod gets K32_ERR_NOENT (it unwraps to abi.ErrNoEnt); the node logs
// abi.LogCallNoReadyPod.
type NoReadyPodError struct {
	From   string // the calling pod, "<namespace>/<name>"
	Target string // the Service, "<service>.<namespace>[:<port>]"
}

func (e *NoReadyPodError) Error() string {
	return e.From + " -> " + e.Target + ": no ready pod behind the Service"
}

// Unwrap gives the code the pod gets.
func (e *NoReadyPodError) Unwrap() error { return abi.ErrNoEnt }
