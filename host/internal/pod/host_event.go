package pod

import (
	"github.com/tetratelabs/wazero/api"
)

// k32EventTopic: (out ptr, cap u32) -> i32. Inside k32_event only.
var k32EventTopic = duringEvent(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
	return int64(copyOut(mod, u32(a, 0), u32(a, 1), s.topic))
})

// k32EventData: (out ptr, cap u32) -> i32. Inside k32_event only.
var k32EventData = duringEvent(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
	return int64(copyOut(mod, u32(a, 0), u32(a, 1), s.eventData))
})
