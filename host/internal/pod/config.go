package pod

import (
	"io/fs"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kube32/kube32/abi"
)

// EnvVar is one environment variable, in order (container env, then injected).
type EnvVar struct{ Name, Value string }

// Config says how to run one container of a pod.
type Config struct {
	Namespace, Name string   // pod identity, used in logs and errors ("default/echo")
	Module          []byte   // the wasm module
	Assets          fs.FS    // the image bundle for k32_resp_asset; nil = no bundle (NOENT)
	Env             []EnvVar // k32_env_get and WASI environ; the first of a repeated name wins
	MemoryLimit     int64    // bytes from resources.limits.memory; 0 = none set, DefaultMemoryLimit applies. Cap = floor(limit/64Ki) pages
	// DefaultMemoryLimit caps a container that sets no MemoryLimit (kube32
	// serve --default-memory-limit); 0 = the package's DefaultMemoryLimit.
	DefaultMemoryLimit int64
	Capabilities       []string                // securityContext.capabilities.add, e.g. "SERVICE_CALL", "CHANNEL_IPC"
	RestartPolicy      string                  // "Always" (default when ""), "OnFailure", "Never"
	HandlerTimeout     time.Duration           // deadline of one callback; 0 = 10s
	Cache              wazero.CompilationCache // shared compilation cache (may be nil)
	Log                func(Line)              // called for each pod log line (also kept in the pod's ring buffer)
	OnStatus           func(Status)            // called after each status change (may be nil)
	// Refused, when set, is told of each host function call refused
	// because the container does not add its capability (K32_ERR_PERM).
	Refused func(function, capability string)
	// RestartCount and LastTermination are where the status starts: the
	// restarts of the runtimes this one replaces (a rebuilt module), and
	// how the last of their containers ended.
	RestartCount    int32
	LastTermination *Termination

	// Caller carries out k32_http_call for pods granted SERVICE_CALL; nil
	// answers K32_ERR_NOTSUP.
	Caller Caller
	// Publisher carries out k32_publish for pods granted CHANNEL_IPC; nil
	// answers K32_ERR_NOTSUP.
	Publisher Publisher
	// Timing is the board time of the node's pods (boardtime.go); nil
	// counts no work.
	Timing *Timing
}

// Line is one line of the pod log.
type Line struct {
	Time   time.Time
	Stream string // "k32" (k32_log and the node's own lines about the pod), "stdout", "stderr"
	Level  int    // 0 debug, 1 info, 2 warn, 3 error
	Text   string
	// Restart is the restart count of the instance the line came from
	// (0 for the first), so kubectl logs --previous can show the previous
	// instance's lines.
	Restart int32
}

// Status mirrors what the kubelet reports in the Pod's status.
type Status struct {
	Phase        string // "Pending", "Running", "Succeeded", "Failed"
	Ready        bool
	RestartCount int32
	Reason       string    // e.g. "MemoryLimitExceeded", "ModuleInvalid", "InitFailed", "DeadlineExceeded", "CrashLoopBackOff"
	Message      string    // a sentence a person can act on
	Started      bool      // true once the pod has started or failed for good (used by /readyz)
	StartedAt    time.Time // when the current instance started
	// LastTermination is how the previous instance ended; nil until the
	// first restart.
	LastTermination *Termination
}

// Termination is how an instance ended, as a container status's
// lastState.terminated records a container's end.
type Termination struct {
	Reason     string // "Error", "OOMKilled", "DeadlineExceeded", "Completed"
	Message    string // one line: what ended it
	ExitCode   int32
	StartedAt  time.Time
	FinishedAt time.Time
}

// DefaultMemoryLimit caps the linear memory of a container without
// resources.limits.memory: 8 MiB, the PSRAM of the largest board (an
// ESP32-S3 with 8 MiB), so a pod that runs under serve without a limit
// could run on some board, and a runaway memory.grow costs the host no more.
const DefaultMemoryLimit = abi.DefaultMemoryLimit

// Phases of a pod.
const (
	PhasePending   = "Pending"
	PhaseRunning   = "Running"
	PhaseSucceeded = "Succeeded"
	PhaseFailed    = "Failed"
)

// Reasons a pod's status gives.
const (
	ReasonMemoryLimitExceeded = "MemoryLimitExceeded"
	// ReasonUnsupportedWasmFeature: the module uses a WebAssembly feature
	// the boards' interpreter does not run (docs/boards.md).
	ReasonUnsupportedWasmFeature = "UnsupportedWasmFeature"
	ReasonOOMKilled              = "OOMKilled"
	reasonModuleInvalid          = "ModuleInvalid"
	reasonInitFailed             = "InitFailed"
	reasonDeadlineExceeded       = "DeadlineExceeded"
	ReasonCrashLoopBackOff       = "CrashLoopBackOff"
	ReasonCompleted              = "Completed"
	reasonError                  = "Error"
)

// ReasonModuleLimitExceeded: the module is over one of the module budgets,
// abi.FunctionLocalsMax and the rest (docs/boards.md), and was refused
// before anything compiled it.
const ReasonModuleLimitExceeded = "ModuleLimitExceeded"

// Restart policies.
const (
	restartAlways    = "Always"
	restartOnFailure = "OnFailure"
	restartNever     = "Never"
)

// defaultHandlerTimeout bounds a callback when Config.HandlerTimeout is 0.
const defaultHandlerTimeout = 10 * time.Second
