package host

import (
	"context"
	"io/fs"
	"net/http"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/termtext"
)

// A Pod is one wasm module run under k32_app_abi: one NewPod made, without
// a cluster, or one a node of a cluster runs (Cluster.Pod, Worker.Pod).
type Pod struct{ p *pod.Pod }

// PodConfig is what NewPod runs: a module with what a container of a Pod
// gives it (docs/abi.md).
type PodConfig struct {
	Namespace, Name string // the pod's identity, in logs and errors ("default/echo")
	Module          []byte // the wasm module
	Assets          fs.FS  // the image bundle for k32_resp_asset; nil: none
	Env             []EnvVar
	MemoryLimit     int64    // resources.limits.memory in bytes; 0: DefaultMemoryLimit
	Capabilities    []string // securityContext.capabilities.add, e.g. "SERVICE_CALL"
	HandlerTimeout  time.Duration
	Cache           wazero.CompilationCache // may be nil
	Log             func(LogLine)           // each pod log line (nil: none)
	// Caller carries out the pod's k32_http_call, Publisher its
	// k32_publish (nil: the calls fail).
	Caller    Caller
	Publisher Publisher
}

// An EnvVar is one variable of the pod's environment.
type EnvVar struct{ Name, Value string }

// A LogLine is one line of a pod's log.
type LogLine struct {
	Time    time.Time
	Stream  string // "k32" (k32_log and the node's lines about the pod), "stdout", "stderr"
	Level   int    // 0 debug, 1 info, 2 warn, 3 error
	Text    string
	Restart int32 // the restart count of the instance the line came from
}

// A Caller carries out k32_http_call.
type Caller interface {
	HTTPCall(ctx context.Context, call Call) (CallResult, error)
}

// A Call is one k32_http_call as the guest made it.
type Call struct {
	From    string // calling pod, "namespace/name"
	Method  string
	URL     string
	Header  http.Header
	Body    []byte
	RespCap int           // bytes of body the guest can take
	Timeout time.Duration // abi.CallTimeoutDefault when the guest passed 0
	// Chain is the pods the request being handled came through, then the
	// caller itself (abi.HeaderCallChain).
	Chain []string
	// Inbound is the context of the request the calling callback handles
	// (nil outside k32_handle).
	Inbound context.Context
}

// A CallResult is the answer to a Call.
type CallResult struct {
	Status    int
	Header    http.Header
	Body      []byte // at most RespCap bytes
	Truncated bool   // the body exceeded RespCap
	InProcess bool   // the target ran in-process, on the caller's goroutine
}

// A Publisher carries out k32_publish for a pod granted CHANNEL_IPC.
type Publisher interface {
	Publish(ctx context.Context, from, topic string, data []byte) error
}

// DefaultMemoryLimit caps the memory of a container without a limit.
const DefaultMemoryLimit = pod.DefaultMemoryLimit

// NewPod prepares a pod; Start runs it.
func NewPod(cfg PodConfig) *Pod {
	c := pod.Config{Namespace: cfg.Namespace, Name: cfg.Name, Module: cfg.Module, Assets: cfg.Assets,
		MemoryLimit: cfg.MemoryLimit, Capabilities: cfg.Capabilities, HandlerTimeout: cfg.HandlerTimeout,
		Cache: cfg.Cache, Log: podLog(cfg.Log)}
	for _, e := range cfg.Env {
		c.Env = append(c.Env, pod.EnvVar(e))
	}
	if cfg.Caller != nil {
		c.Caller = callerIn{cfg.Caller}
	}
	if cfg.Publisher != nil {
		c.Publisher = cfg.Publisher
	}
	return &Pod{pod.New(c)}
}

// podLog hands a pod's lines to log (nil: nil).
func podLog(log func(LogLine)) func(pod.Line) {
	if log == nil {
		return nil
	}
	return func(l pod.Line) { log(LogLine(l)) }
}

// podLogOf is podLog for the log of a cluster's pods.
func podLogOf(log func(namespace, name string, line LogLine)) func(string, string, pod.Line) {
	if log == nil {
		return nil
	}
	return func(namespace, name string, l pod.Line) { log(namespace, name, LogLine(l)) }
}

// callerIn is a Caller of host's for the pod runtime; callerOut the pod
// runtime's for host's callers.
type (
	callerIn  struct{ c Caller }
	callerOut struct{ c pod.Caller }
)

func (c callerIn) HTTPCall(ctx context.Context, call pod.Call) (pod.CallResult, error) {
	r, err := c.c.HTTPCall(ctx, Call(call))
	return pod.CallResult(r), err
}

func (c callerOut) HTTPCall(ctx context.Context, call Call) (CallResult, error) {
	r, err := c.c.HTTPCall(ctx, pod.Call(call))
	return CallResult(r), err
}

// NewDiskCache returns a compilation cache kept in dir.
func NewDiskCache(dir string) (wazero.CompilationCache, error) { return pod.NewDiskCache(dir) }

// LogText is text a pod chose, escaped so that it stays on one line
// (the rule of docs/serve.md, "Hostile clients").
func LogText(s string) string { return termtext.Line(s) }

// WazeroVersion is the version of wazero this binary was built with.
func WazeroVersion() string { return pod.WazeroVersion() }

// Reasons a pod's status gives when its module is refused before it runs
// (docs/boards.md).
const (
	ReasonUnsupportedWasmFeature = pod.ReasonUnsupportedWasmFeature
	ReasonModuleLimitExceeded    = pod.ReasonModuleLimitExceeded
)

// podOf is a node's pod, as host's.
func podOf(p *pod.Pod, ok bool) (*Pod, bool) {
	if !ok {
		return nil, false
	}
	return &Pod{p}, true
}

// Start checks, compiles and instantiates the module and runs its init;
// ctx bounds this work only. A failure is in Status too.
func (p *Pod) Start(ctx context.Context) error { return p.p.Start(ctx) }

// Stop ends the pod: a running callback is killed, sleeps and calls are
// interrupted.
func (p *Pod) Stop() { p.p.Stop() }

// ServeHTTP runs one k32_handle callback for r.
func (p *Pod) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.p.ServeHTTP(w, r) }

// Event delivers one channel message to k32_event and returns its result;
// an error means the message was not handled.
func (p *Pod) Event(ctx context.Context, topic string, data []byte) (int32, error) {
	return p.p.Event(ctx, topic, data)
}

// Logs are the last lines of the pod's log, oldest first.
func (p *Pod) Logs() []LogLine {
	lines := p.p.Logs()
	out := make([]LogLine, len(lines))
	for i, l := range lines {
		out[i] = LogLine(l)
	}
	return out
}

// A PodStatus is what the kubelet would report in the Pod's status.
type PodStatus struct {
	Phase        string // "Pending", "Running", "Succeeded", "Failed"
	Ready        bool
	RestartCount int32
	Reason       string // e.g. "MemoryLimitExceeded", "ModuleInvalid", "CrashLoopBackOff"
	Message      string // a sentence a person can act on
}

// Status is the pod's status now.
func (p *Pod) Status() PodStatus {
	s := p.p.Status()
	return PodStatus{Phase: s.Phase, Ready: s.Ready, RestartCount: s.RestartCount, Reason: s.Reason, Message: s.Message}
}
