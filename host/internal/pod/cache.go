package pod

import (
	"fmt"

	"github.com/tetratelabs/wazero"
)

// NewDiskCache returns a compilation cache kept in dir, shared by every pod
// given it in Config.Cache: a second `kube32 serve` finds the machine code of
// unchanged modules there and does not compile them again. dir is created
// when missing; wazero keeps one subdirectory per wazero version.
func NewDiskCache(dir string) (wazero.CompilationCache, error) {
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, fmt.Errorf("compilation cache %s: %w", dir, err)
	}
	return c, nil
}
