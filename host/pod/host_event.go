package pod

import (
	"context"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// k32EventTopic: (out ptr, cap u32) -> i32. Inside k32_event only.
func k32EventTopic(_ *Pod, ctx context.Context, mod api.Module, a []uint64) int64 {
	s := eventState(ctx)
	if s == nil {
		return int64(abi.ErrInval)
	}
	return int64(copyOut(mod, u32(a, 0), u32(a, 1), s.topic))
}

// k32EventData: (out ptr, cap u32) -> i32. Inside k32_event only.
func k32EventData(_ *Pod, ctx context.Context, mod api.Module, a []uint64) int64 {
	s := eventState(ctx)
	if s == nil {
		return int64(abi.ErrInval)
	}
	return int64(copyOut(mod, u32(a, 0), u32(a, 1), s.eventData))
}
