package call

import (
	"context"

	"github.com/kube32/kube32/abi"
)

// The native stack of in-process calls (docs/calls.md, "Native stack"). On
// a board every pod callback of a node runs on its one interpreter stack,
// and a call to a pod of the same node runs the target's callback on top of
// the caller's. The request of each in-process call carries how many
// callbacks are then on the stack; a callback entered from outside (the
// Ingress, the pod port, an event) is the first.

// callbacksKey is the context key of that count.
type callbacksKey struct{}

// callbacksOn is how many callbacks are on the interpreter stack while one
// handling a request with context inbound runs (nil: a callback that
// handles no request).
func callbacksOn(inbound context.Context) int {
	if inbound != nil {
		if n, ok := inbound.Value(callbacksKey{}).(int); ok {
			return n
		}
	}
	return 1
}

// stackFor checks that a callback with the context inbound may call a pod
// of its node in-process on board (nil: no bound but abi.CallChainMax),
// and returns the context the target's request carries. With less than
// abi.InProcessCallStackBoard left free the call fails with abi.ErrNoMem.
func stackFor(ctx, inbound context.Context, board *abi.Board) (context.Context, error) {
	n := callbacksOn(inbound)
	if board != nil && board.StackLeft(n) < abi.InProcessCallStackBoard {
		return nil, abi.ErrNoMem
	}
	return context.WithValue(ctx, callbacksKey{}, n+1), nil
}
