package cli

import (
	"fmt"
	"math"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/host/pod"
)

// addNodeLimitFlags adds the limits every node applies, to serve (its
// control plane and workers) and to node --join alike: the memory cap of a
// container without resources.limits.memory, and the cap on open
// connections.
func addNodeLimitFlags(f *pflag.FlagSet, memory *string, conns *int) {
	f.StringVar(memory, "default-memory-limit", modcheck.FormatBytes(pod.DefaultMemoryLimit),
		"memory cap of a container without resources.limits.memory (a quantity; the default is the PSRAM of the largest board)")
	intFlag(f, conns, "max-connections", 0, 0, math.MaxInt32, "connections open at once over every port; at the cap the longest-idle keep-alive one is closed (default half the open-file limit, at most 4096)")
}

// parseMemoryLimit reads --default-memory-limit: at least one WebAssembly
// page, as resources.limits.memory must be to run any module.
func parseMemoryLimit(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0, &usageError{fmt.Errorf("--default-memory-limit %q: not a quantity (e.g. 8Mi): %v", s, err)}
	}
	if q.Value() < modcheck.PageSize {
		return 0, &usageError{fmt.Errorf("--default-memory-limit %s: less than one WebAssembly page (64Ki)", s)}
	}
	return q.Value(), nil
}
