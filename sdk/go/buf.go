package k32

import "unsafe"

// getter is a host function of the ABI's getter form: it copies
// min(len, cap) bytes to out and returns the FULL length, or a negative
// K32_ERR_* code.
type getter func(out unsafe.Pointer, cap uint32) int32

// maxGetAttempts bounds the re-reads of a value that keeps growing between
// calls, so a misbehaving host cannot make a pod loop forever.
const maxGetAttempts = 4

// getBytes reads a value with get, starting with a buffer of hint bytes and
// growing it to the length the host reports when the value did not fit.
func getBytes(get getter, hint int) ([]byte, error) {
	buf := make([]byte, hint)
	for i := 0; i < maxGetAttempts; i++ {
		n := get(bytesPtr(buf), uint32(len(buf)))
		if n < 0 {
			return nil, Errno(n)
		}
		if int(n) <= len(buf) {
			return buf[:n], nil
		}
		buf = make([]byte, n)
	}
	return nil, ErrTooBig
}

// getString is getBytes for text values.
func getString(get getter, hint int) (string, error) {
	b, err := getBytes(get, hint)
	return string(b), err
}

// bytesPtr is the address of b's first byte, or nil for an empty slice (the
// host never reads through a zero length).
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// stringPtr is the address of s's first byte, or nil for "".
func stringPtr(s string) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.StringData(s))
}
