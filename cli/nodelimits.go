package cli

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube32/kube32/abi/modcheck"
)

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
