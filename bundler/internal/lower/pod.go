package lower

import (
	"bytes"

	"github.com/kube32/kube32/abi/wasmbin"
)

// Pod returns the core module the boards run for a pod's binary: a
// component is unwrapped to its core module, then WIT names are lowered
// (Module). Anything else is returned as it is for the module check to
// refuse in its words.
func Pod(bin []byte) ([]byte, error) {
	if bytes.HasPrefix(bin, []byte(wasmbin.ComponentHeader)) {
		core, err := Component(bin)
		if err != nil {
			return nil, err
		}
		bin = core
	}
	return Module(bin)
}
