package testpods

import (
	"crypto/sha256"

	"github.com/kube32/kube32/abi/wasmbin"
)

// Padded returns module with a custom section named name appended that
// makes it size bytes larger (at least), filled with bytes drawn from
// name: a module as large as one carrying debug information, which runs
// as module does, and whose digest differs for each name.
func Padded(module []byte, name string, size int) []byte {
	payload := make([]byte, 0, size)
	block := sha256.Sum256([]byte(name))
	for len(payload) < size {
		payload = append(payload, block[:]...)
		block = sha256.Sum256(block[:])
	}
	body := append(wasmbin.AppendName(nil, name), payload...)
	return wasmbin.AppendSection(append([]byte(nil), module...), 0, body) // a custom section
}
