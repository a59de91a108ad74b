package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// resetStatus clears what a client may not set on create: the status of
// kinds whose status a controller writes.
func resetStatus(res *resource, obj runtime.Object) {
	if res.ResetStatus != nil {
		res.ResetStatus(obj)
	}
}

// copyStatus sets dst's status to src's, for kinds with a status.
func copyStatus(res *resource, dst, src runtime.Object) {
	if res.CopyStatus != nil {
		res.CopyStatus(dst, src)
	}
}
