//go:build wasm

package k32

import "unsafe"

// The host functions of k32_app_abi, one per entry of the ABI table
// (abi.Functions in the kube32 repository; a test there keeps both equal).
// Pointers are unsafe.Pointer so the garbage collector keeps the memory they
// name alive for the call; lengths and capacities are uint32.

//go:wasmimport k32 k32_log
func k32Log(level int32, msg unsafe.Pointer, msgLen uint32) int32

//go:wasmimport k32 k32_env_get
func k32EnvGet(key unsafe.Pointer, keyLen uint32, out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_time_ms
func k32TimeMs() int64

//go:wasmimport k32 k32_sleep_ms
func k32SleepMs(ms uint32) int32

//go:wasmimport k32 k32_random
func k32Random(out unsafe.Pointer, outLen uint32) int32

//go:wasmimport k32 k32_req_method
func k32ReqMethod(out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_req_path
func k32ReqPath(out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_req_query
func k32ReqQuery(out unsafe.Pointer, outCap uint32) int32

//lint:ignore U1000 declared for completeness: every ABI function has a binding, and the SDK reads headers in one k32_req_headers call
//go:wasmimport k32 k32_req_header
func k32ReqHeader(name unsafe.Pointer, nameLen uint32, out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_req_headers
func k32ReqHeaders(out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_req_read
func k32ReqRead(out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_resp_status
func k32RespStatus(status uint32) int32

//go:wasmimport k32 k32_resp_header
func k32RespHeader(name unsafe.Pointer, nameLen uint32, value unsafe.Pointer, valueLen uint32) int32

//go:wasmimport k32 k32_resp_write
func k32RespWrite(data unsafe.Pointer, dataLen uint32) int32

//go:wasmimport k32 k32_resp_asset
func k32RespAsset(path unsafe.Pointer, pathLen uint32, status uint32) int32

//go:wasmimport k32 k32_http_call
func k32HTTPCall(method unsafe.Pointer, methodLen uint32, url unsafe.Pointer, urlLen uint32,
	headers unsafe.Pointer, headersLen uint32, body unsafe.Pointer, bodyLen uint32,
	resp unsafe.Pointer, respCap uint32, respLen unsafe.Pointer, timeoutMs uint32) int32

//go:wasmimport k32 k32_http_status
func k32HTTPStatus() int32

//go:wasmimport k32 k32_http_header
func k32HTTPHeader(name unsafe.Pointer, nameLen uint32, out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_publish
func k32Publish(topic unsafe.Pointer, topicLen uint32, data unsafe.Pointer, dataLen uint32) int32

//go:wasmimport k32 k32_event_topic
func k32EventTopic(out unsafe.Pointer, outCap uint32) int32

//go:wasmimport k32 k32_event_data
func k32EventData(out unsafe.Pointer, outCap uint32) int32
