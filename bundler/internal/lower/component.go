package lower

import "errors"

// Component returns the one core module of a component whose world is
// kube32:app/pod.
func Component(bin []byte) ([]byte, error) {
	return nil, errors.New("the binary is a WebAssembly component; components are not unwrapped yet")
}
