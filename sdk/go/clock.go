package k32

import "time"

// Now returns the node's wall clock (k32_time_ms), to the millisecond.
func Now() time.Time {
	return time.UnixMilli(k32TimeMs())
}

// Sleep pauses the pod for d, rounded down to milliseconds, in the host
// (k32_sleep_ms): the Go scheduler is not involved, so it works inside a
// callback. It returns ErrIntr early when the pod is being stopped.
func Sleep(d time.Duration) error {
	ms := d.Milliseconds()
	const maxMs = 1<<32 - 1
	for ms > 0 {
		chunk := ms
		if chunk > maxMs {
			chunk = maxMs
		}
		if err := errnoOf(k32SleepMs(uint32(chunk))); err != nil {
			return err
		}
		ms -= chunk
	}
	return nil
}

// Random fills b with cryptographically random bytes from the node.
func Random(b []byte) error {
	return errnoOf(k32Random(bytesPtr(b), uint32(len(b))))
}
