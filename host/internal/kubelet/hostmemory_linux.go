package kubelet

import "golang.org/x/sys/unix"

// hostMemory is the machine's physical memory in bytes, 0 when unknown.
func hostMemory() int64 {
	var info unix.Sysinfo_t
	if unix.Sysinfo(&info) != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}
