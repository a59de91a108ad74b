package abi

import "strings"

// A pod ID is how the protocol names one pod: "<namespace>/<name>", the
// value of HeaderPod, the pod= of EgressPath and the calling pod of a call
// (docs/calls.md). PodID makes it and SplitPodID reads it, so that every
// path agrees on the format.

// PodID is the ID of the pod name in namespace.
func PodID(namespace, name string) string { return namespace + "/" + name }

// SplitPodID splits an ID at its first "/" into namespace and name; ok is
// false when id has no "/" or either part is empty. Without ok, namespace
// is all of id and name "".
func SplitPodID(id string) (namespace, name string, ok bool) {
	namespace, name, found := strings.Cut(id, "/")
	return namespace, name, found && namespace != "" && name != ""
}
