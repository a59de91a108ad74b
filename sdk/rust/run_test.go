package rustsdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testabi"
)

// runPod is a no_std pod that uses the SDK's wrappers and allocator:
// k32_handle reads a path longer than the first buffer, allocates past the
// initial memory twice (the second time from the free list), calls a
// Service and answers what it saw; k32_main panics.
const runPod = `#![no_std]
extern crate alloc;

use alloc::string::String;
use alloc::vec::Vec;
use core::arch::wasm32;

fn pages(out: &mut String) {
    let mut n = wasm32::memory_size(0);
    let mut digits = Vec::new();
    loop {
        digits.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 { break; }
    }
    digits.reverse();
    out.push_str(core::str::from_utf8(&digits).unwrap());
}

fn handle() -> k32::Result<()> {
    let mut body = k32::request::path();
    body.push(' ');
    for _ in 0..2 {
        let big: Vec<u8> = Vec::with_capacity(300 << 10);
        drop(big);
        pages(&mut body);
        body.push(' ');
    }
    let resp = k32::http::get("http://echo/ping").header("X-A", "b").send()?;
    body.push_str(core::str::from_utf8(&resp.body).unwrap());
    body.push(' ');
    body.push_str(&resp.header("Content-Type").unwrap_or_default());
    k32::response::respond(201, "text/plain", body.as_bytes())
}

fn boom() -> i32 {
    let v: Vec<u8> = Vec::new();
    v[k32::time_ms() as usize] as i32
}

fn refused() -> k32::Result<()> {
    k32::channel::publish("t", b"x")
}

k32::export!(handle = handle, main = boom, event = refused);
`

// host is a recording k32 host for the test pod.
type host struct {
	testabi.Recorder
	path            string
	callReq         string
	callHeaderLines string
}

// answer implements what the pod calls beyond logs and its answer.
func (h *host) answer(c testabi.Call) (uint64, bool) {
	switch c.Name {
	case "k32_time_ms":
		return 5, true
	case "k32_req_path":
		return c.Put(h.path, 0), true
	case "k32_publish":
		return api.EncodeI32(int32(abi.ErrPerm)), true
	case "k32_http_call":
		h.callReq = c.Str(0) + " " + c.Str(2)
		h.callHeaderLines = c.Str(4)
		n := c.Put("pong", 8)
		c.M.Memory().WriteUint32Le(uint32(c.Stack[10]), uint32(n))
		return 200, true
	case "k32_http_header":
		if strings.EqualFold(c.Str(0), "content-type") {
			return c.Put("text/x-pong", 2), true
		}
		return api.EncodeI32(int32(abi.ErrNoEnt)), true
	}
	return 0, false
}

func TestNoStdPodRunsAgainstARecordingHost(t *testing.T) {
	wasm := build(t, runPod)
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	h := &host{path: "/a/path/longer/than/the/sixty/four/bytes/that/the/sdk/tries/first/" + strings.Repeat("x", 40)}
	testabi.Host(t, r, &h.Recorder, h.answer)
	pod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}

	res, err := pod.ExportedFunction("k32_handle").Call(ctx)
	if err != nil || api.DecodeI32(res[0]) != 0 {
		t.Fatalf("k32_handle = %v, %v; want 0", res, err)
	}
	// 300 KiB needs a 512 KiB block: 8 pages past the first; the second
	// allocation reuses the freed block, so the memory does not grow again.
	if want := h.path + " 9 9 pong text/x-pong"; h.Status != 201 || h.Body != want {
		t.Errorf("response %d %q, want 201 %q", h.Status, h.Body, want)
	}
	if h.callReq != "GET http://echo/ping" || h.callHeaderLines != "X-A: b\r\n" {
		t.Errorf("call %q with headers %q", h.callReq, h.callHeaderLines)
	}
	if len(h.Headers) != 1 || h.Headers[0] != "Content-Type: text/plain" {
		t.Errorf("response headers %q", h.Headers)
	}

	res, err = pod.ExportedFunction("k32_event").Call(ctx)
	if err != nil || api.DecodeI32(res[0]) != int32(abi.ErrPerm) {
		t.Errorf("k32_event = %v, %v; want K32_ERR_PERM from the Err it returned", res, err)
	}

	if _, err := pod.ExportedFunction("k32_main").Call(ctx); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("k32_main: %v, want a trap", err)
	}
	if n := len(h.Logs); n == 0 || !strings.HasPrefix(h.Logs[n-1], "3 panic at src/lib.rs:") {
		t.Errorf("logs %q, want the panic's location at level error", h.Logs)
	}
}
