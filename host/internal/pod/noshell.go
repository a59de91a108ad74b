package pod

import "fmt"

// NoShell is the answer to exec, attach and the kubelet's run on a kube32
// pod (and so to kubectl cp, which runs tar through exec), for the API
// server and a node's kubelet API alike: what (exec, attach, run) is not
// possible, and what to use instead.
func NoShell(namespace, name, what string) string {
	return fmt.Sprintf("pod %s/%s: %s is not possible: a kube32 pod is a WebAssembly module with no shell, "+
		"processes or filesystem (kubectl cp runs tar through exec); use kubectl logs, or kubectl port-forward to reach its HTTP handler",
		namespace, name, what)
}
