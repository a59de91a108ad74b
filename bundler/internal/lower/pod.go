package lower

import (
	"bytes"
)

// Pod returns the core module the boards run for a pod's binary: a
// component is unwrapped to its core module, then WIT names are lowered
// (Module). Anything else is returned as it is for the module check to
// refuse in its words.
func Pod(bin []byte) ([]byte, error) {
	if len(bin) >= 8 && bytes.Equal(bin[:4], magic) && bytes.Equal(bin[4:8], componentVersion) {
		core, err := Component(bin)
		if err != nil {
			return nil, err
		}
		bin = core
	}
	return Module(bin)
}
