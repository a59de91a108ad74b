//go:build !wasm

package k32

import "unsafe"

// Off WebAssembly there is no host: every host function answers
// K32_ERR_NOTSUP, so the package compiles, vets and unit-tests on any
// platform (and the kube32 CLI can embed its sources, see Source).

// k32Log stands in for k32.k32_log.
func k32Log(_ int32, _ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32EnvGet stands in for k32.k32_env_get.
func k32EnvGet(_ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32TimeMs stands in for k32.k32_time_ms.
func k32TimeMs() int64 { return 0 }

// k32SleepMs stands in for k32.k32_sleep_ms.
func k32SleepMs(_ uint32) int32 { return int32(ErrNotSup) }

// k32Random stands in for k32.k32_random.
func k32Random(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32ReqMethod stands in for k32.k32_req_method.
func k32ReqMethod(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32ReqPath stands in for k32.k32_req_path.
func k32ReqPath(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32ReqQuery stands in for k32.k32_req_query.
func k32ReqQuery(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32ReqHeader stands in for k32.k32_req_header.
//
//lint:ignore U1000 declared for completeness: every ABI function has a binding, and the SDK reads headers in one k32_req_headers call
func k32ReqHeader(_ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32) int32 {
	return int32(ErrNotSup)
}

// k32ReqHeaders stands in for k32.k32_req_headers.
func k32ReqHeaders(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32ReqRead stands in for k32.k32_req_read.
func k32ReqRead(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32RespStatus stands in for k32.k32_resp_status.
func k32RespStatus(_ uint32) int32 { return int32(ErrNotSup) }

// k32RespHeader stands in for k32.k32_resp_header.
func k32RespHeader(_ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32) int32 {
	return int32(ErrNotSup)
}

// k32RespWrite stands in for k32.k32_resp_write.
func k32RespWrite(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32RespAsset stands in for k32.k32_resp_asset.
func k32RespAsset(_ unsafe.Pointer, _ uint32, _ uint32) int32 { return int32(ErrNotSup) }

// k32HTTPCall stands in for k32.k32_http_call.
func k32HTTPCall(_ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32) int32 {
	return int32(ErrNotSup)
}

// k32HTTPStatus stands in for k32.k32_http_status.
func k32HTTPStatus() int32 { return int32(ErrNotSup) }

// k32HTTPHeader stands in for k32.k32_http_header.
func k32HTTPHeader(_ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32) int32 {
	return int32(ErrNotSup)
}

// k32Publish stands in for k32.k32_publish.
func k32Publish(_ unsafe.Pointer, _ uint32, _ unsafe.Pointer, _ uint32) int32 {
	return int32(ErrNotSup)
}

// k32EventTopic stands in for k32.k32_event_topic.
func k32EventTopic(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }

// k32EventData stands in for k32.k32_event_data.
func k32EventData(_ unsafe.Pointer, _ uint32) int32 { return int32(ErrNotSup) }
