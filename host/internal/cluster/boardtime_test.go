package cluster

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/meter"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// spinPod is the spin test pod (internal/testkit/testpods/c/spin.c) on node.
func spinPod(name, node string) manifest.Object {
	return manifest.Object{Obj: pinnedPod(name, name, node, "spin", corev1.Container{Resources: memoryLimit("64Ki")})}
}

// boardTimeOf reads the board entry of an answer's Server-Timing.
func boardTimeOf(t *testing.T, what string, h http.Header) (time.Duration, string) {
	t.Helper()
	d, board, ok := abi.ParseBoardTiming(h.Values(abi.HeaderServerTiming))
	if !ok {
		t.Fatalf("%s: no board entry in Server-Timing %q", what, h.Values(abi.HeaderServerTiming))
	}
	return d, board
}

// spinTime asks pod for n rounds of work at podURL and returns the board
// time of the answer. The query has seven digits whatever n is, so that
// reading it is the same work.
func spinTime(t *testing.T, podURL, pod string, n int) time.Duration {
	t.Helper()
	code, h, body := fetch(t, http.MethodGet, fmt.Sprintf("%s/?%07d", podURL, n), "", abi.HeaderPod+": default/"+pod)
	if code != http.StatusOK || len(body) != 8 {
		t.Fatalf("%s ?%d: %d %q", pod, n, code, body)
	}
	d, _ := boardTimeOf(t, pod, h)
	return d
}

// workCycles counts, apart from any request, what spin's export work(n)
// takes on model's board: the module instrumented as the node instruments
// it, in a runtime of its own whose k32 functions do nothing.
func workCycles(t *testing.T, wasm []byte, model abi.TimeModel) func(n uint64) float64 {
	t.Helper()
	counted, err := meter.Instrument(wasm, model)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	k32 := rt.NewHostModuleBuilder(abi.Module)
	for _, f := range abi.Functions {
		types := func(ts []abi.Type) (out []api.ValueType) {
			for _, t := range ts {
				out = append(out, map[string]api.ValueType{"i32": api.ValueTypeI32, "i64": api.ValueTypeI64}[t.WasmType()])
			}
			return out
		}
		var params []abi.Type
		for _, p := range f.Params {
			params = append(params, p.Type)
		}
		k32.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {}),
			types(params), types(f.Results)).Export(f.Name)
	}
	if _, err := k32.Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	mod, err := rt.InstantiateWithConfig(ctx, counted, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	millicycles := mod.ExportedGlobal(meter.MillicyclesGlobal).(api.MutableGlobal)
	return func(n uint64) float64 {
		millicycles.Set(0)
		if _, err := mod.ExportedFunction("work").Call(ctx, n); err != nil {
			t.Fatal(err)
		}
		return float64(millicycles.Get()) / 1000
	}
}

// near reports whether two board times agree to the nanoseconds that
// Server-Timing's milliseconds and the rounding of each to nanoseconds
// leave.
func near(a, b time.Duration) bool { return (a - b).Abs() <= 4 }

// Under serve --board esp32 every answer carries the board time of its
// callback in Server-Timing: the same request gives the same time, and
// more work adds exactly what the esp32 model makes of the instructions
// counted apart for it (docs/boards.md, "Time on the board"); the rest of
// the callback (its handling, its host functions) is on top.
func TestServerTimingIsTheBoardModelOfTheCountedWork(t *testing.T) {
	board, err := abi.LookupBoard("esp32")
	if err != nil {
		t.Fatal(err)
	}
	images := fixtureImages(t, "spin")
	c := startReady(t, Options{Images: os.DirFS(images), Objects: []manifest.Object{spinPod("spin", ControlPlaneName)}, Board: &board}, "spin")
	wasm, err := os.ReadFile(filepath.Join(images, "firmware", "images", "wasm", "spin.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	cycles := workCycles(t, wasm, board.Time)

	_, h, _ := fetch(t, http.MethodGet, c.PodURL()+"/?0", "", abi.HeaderPod+": default/spin")
	if _, name := boardTimeOf(t, "spin", h); name != "esp32" {
		t.Fatalf("Server-Timing names board %q, want esp32", name)
	}
	base := spinTime(t, c.PodURL(), "spin", 0)
	if again := spinTime(t, c.PodURL(), "spin", 0); again != base {
		t.Fatalf("the same request took %s, then %s on the board", base, again)
	}
	host := board.Time.Host
	// k32_req_query and k32_resp_write of 8 bytes, beside work(0).
	floor := board.Time.Duration(cycles(0) + 2*host.Call.Fixed + host.RespWrite.Of(8))
	if base <= floor {
		t.Errorf("a request of no work took %s on the board, not more than its work and host functions (%s)", base, floor)
	}
	for _, n := range []uint64{1000, 2000, 5000, 100_000} {
		got := spinTime(t, c.PodURL(), "spin", int(n)) - base
		want := board.Time.Duration(cycles(n) - cycles(0))
		if !near(got, want) {
			t.Errorf("?%d took %s more than ?0 on the board; the model of its counted work makes %s", n, got, want)
		}
	}
}

// A caller's board time holds its callee's, as the board's interpreter
// runs both (in-process) or waits for the other node (remote): calling
// spin for more work costs the caller exactly what it costs spin, and a
// call costs at least the model's price of its kind.
func TestCallersBoardTimeHoldsItsCallees(t *testing.T) {
	board, err := abi.LookupBoard("esp32-psram")
	if err != nil {
		t.Fatal(err)
	}
	images := fixtureImages(t, "relay")
	spinWasm := testpods.Fixture(t, "spin", 65536)
	if err := os.WriteFile(filepath.Join(images, "firmware", "images", "wasm", "spin.wasm"), spinWasm, 0o644); err != nil {
		t.Fatal(err)
	}
	objs := []manifest.Object{
		withLimit(relay("caller", "caller", ControlPlaneName), "256Ki"),
		spinPod("near", ControlPlaneName), svc("near"),
		spinPod("far", w1), svc("far"),
	}
	c := startReady(t, Options{Images: os.DirFS(images), Objects: objs, Board: &board, Nodes: 2, HandlerTimeout: 5 * time.Second},
		"caller", "near", "far")
	host := board.Time.Host
	for _, target := range []struct {
		name, podURL string
		hop          abi.Cost
	}{{"near", c.PodURL(), host.InProcessCall}, {"far", c.Workers[0].PodURL(), host.NodeCall}} {
		callerTime := func(n int) time.Duration {
			t.Helper()
			code, h, body := fetch(t, http.MethodPost, c.PodURL()+"/relay", fmt.Sprintf("call GET http://%s/?%07d 5000 64\n", target.name, n),
				abi.HeaderPod+": default/caller")
			if code != http.StatusOK || !strings.Contains(body, "call rc=200 ") {
				t.Fatalf("caller calling %s: %d %s", target.name, code, body)
			}
			if strings.Contains(body, abi.HeaderServerTiming) {
				t.Errorf("the caller saw the callee's Server-Timing, which a board never sends:\n%s", body)
			}
			d, _ := boardTimeOf(t, "caller", h)
			return d
		}
		calleeMore := spinTime(t, target.podURL, target.name, 100_000) - spinTime(t, target.podURL, target.name, 0)
		callerMore := callerTime(100_000) - callerTime(0)
		if !near(callerMore, calleeMore) {
			t.Errorf("%s: calling it for more work cost the caller %s more; it costs %s itself", target.name, callerMore, calleeMore)
		}
		least := board.Time.Duration(target.hop.Fixed) + spinTime(t, target.podURL, target.name, 0)
		if got := callerTime(0); got <= least {
			t.Errorf("%s: a call took the caller %s on the board, not more than the call's price and the callee's time (%s)", target.name, got, least)
		}
	}
}
