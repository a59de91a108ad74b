package host

import (
	"github.com/tetratelabs/wazero"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/termtext"
)

// A Pod is one wasm module run under k32_app_abi, without a cluster.
type Pod = pod.Pod

// The values a Pod is made of and reports.
type (
	PodConfig  = pod.Config
	EnvVar     = pod.EnvVar
	LogLine    = pod.Line
	Caller     = pod.Caller
	Call       = pod.Call
	CallResult = pod.CallResult
)

// DefaultMemoryLimit caps the memory of a container without a limit.
const DefaultMemoryLimit = pod.DefaultMemoryLimit

// NewPod prepares a pod; Start runs it.
func NewPod(cfg PodConfig) *Pod { return pod.New(cfg) }

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
