//go:build !linux

package kubelet

// hostMemory is the machine's physical memory in bytes, 0 when unknown:
// elsewhere than Linux a node without a board reports none.
func hostMemory() int64 { return 0 }
