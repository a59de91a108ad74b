package pod

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Caller carries out k32_http_call. The pod has already checked the
// SERVICE_CALL capability and the guest's pointers; the Caller resolves the
// URL, applies NetworkPolicy and makes the request.
type Caller interface {
	HTTPCall(ctx context.Context, call Call) (CallResult, error)
}

// Call is one k32_http_call as the guest made it.
type Call struct {
	From    string // calling pod, "namespace/name"
	Method  string
	URL     string
	Header  http.Header // parsed from the guest's "Name: value\r\n" lines
	Body    []byte
	RespCap int           // bytes of body the guest can take
	Timeout time.Duration // abi.CallTimeoutDefault when the guest passed 0, at most abi.CallTimeoutMax; ctx carries it as a deadline too
	// Chain is the call chain: the pods the request being handled came
	// through (its abi.HeaderCallChain), oldest first, then the caller
	// itself. Outside k32_handle (k32_event, k32_main) it is the caller
	// alone. A Caller refuses a target already in it, or a chain of
	// abi.CallChainMax, with K32_ERR_LOOP.
	Chain []string
	// Inbound is the context of the request the calling callback handles
	// (nil outside k32_handle). A Caller that runs its target in-process
	// reads from it what it set on the request it made: how deep the
	// in-process calls of a chain already are.
	Inbound context.Context
}

// parseCallChain reads an abi.HeaderCallChain value (or several, as
// repeated headers), skipping empty entries.
func parseCallChain(values ...string) []string {
	var chain []string
	for _, v := range values {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				chain = append(chain, id)
			}
		}
	}
	return chain
}

// FormatCallChain writes chain as an abi.HeaderCallChain value.
func FormatCallChain(chain []string) string { return strings.Join(chain, ",") }

// CallResult is the answer to a Call.
type CallResult struct {
	Status int
	Header http.Header
	Body   []byte // at most RespCap bytes
	// Truncated is true when the body exceeded RespCap: the guest gets
	// K32_ERR_TOOBIG with the first RespCap bytes, and k32_http_status still
	// returns Status.
	Truncated bool
	// InProcess: the target ran in-process, on the caller's goroutine,
	// and charged its board time to the caller as it ran.
	InProcess bool
}

// Publisher carries out k32_publish for a pod granted CHANNEL_IPC.
type Publisher interface {
	Publish(ctx context.Context, from, topic string, data []byte) error
}

// inProcessKey marks the context of an in-process call's request.
type inProcessKey struct{}

// InProcessCall marks ctx as the context of a request that a pod's
// k32_http_call makes to a pod of the same node, whose callback then runs
// on the caller's goroutine. The target's callback ends when ctx does,
// because the caller's timeout must hold however long the target runs
// (docs/calls.md, "Timeouts"); a request from a client or another node
// does not end the callback it started.
func InProcessCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, inProcessKey{}, true)
}

// inProcessCall reports whether ctx is the context of an in-process call.
func inProcessCall(ctx context.Context) bool {
	v, _ := ctx.Value(inProcessKey{}).(bool)
	return v
}
