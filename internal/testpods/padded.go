package testpods

import (
	"crypto/sha256"
	"encoding/binary"
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
	body := binary.AppendUvarint(nil, uint64(len(name)))
	body = append(body, name...)
	body = append(body, payload...)
	out := append([]byte(nil), module...)
	out = append(out, 0) // a custom section
	out = binary.AppendUvarint(out, uint64(len(body)))
	return append(out, body...)
}
