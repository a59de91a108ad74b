package k32

import "fmt"

// Level is the severity of a log line, as k32_log numbers it.
type Level int32

// Log levels.
const (
	LevelDebug Level = 0
	LevelInfo  Level = 1
	LevelWarn  Level = 2
	LevelError Level = 3
)

// String returns "DEBUG", "INFO", "WARN" or "ERROR".
func (l Level) String() string {
	switch l {
	case LevelDebug:
		return "DEBUG"
	case LevelInfo:
		return "INFO"
	case LevelWarn:
		return "WARN"
	case LevelError:
		return "ERROR"
	}
	return "LEVEL(" + itoa(int(l)) + ")"
}

// Log writes msg as one line of the pod's log (kubectl logs) with level.
// Writing to os.Stdout or os.Stderr also reaches the pod's log, without a
// level.
func Log(level Level, msg string) {
	k32Log(int32(level), stringPtr(msg), uint32(len(msg)))
}

// Logf formats its arguments as fmt.Sprintf does and logs the result. It is
// the only part of this package that links fmt.
func Logf(level Level, format string, args ...any) {
	Log(level, fmt.Sprintf(format, args...))
}
