package k32

import "strconv"

// protect runs f and turns a panic into a logged error, so one bad request
// or event fails alone instead of trapping the module. It reports whether f
// returned normally.
func protect(what string, f func()) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			Log(LevelError, "k32: panic "+what+": "+panicText(v))
			ok = false
		}
	}()
	f()
	return true
}

// panicText describes a panic value without fmt, which a pod need not link.
func panicText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	case int:
		return strconv.Itoa(v)
	}
	return "(panic value of a type without Error or String)"
}

// itoa formats n in decimal.
func itoa(n int) string { return strconv.Itoa(n) }

// callbackFailed is what a callback returns after the SDK has logged why it
// failed (a panic, an OnInit error that is not an Errno). It is negative, so
// the node answers 500 or fails the start, and it is no K32_ERR_* code, so
// the node's own log line does not suggest a host error.
const callbackFailed int32 = -1000
