package pod

import (
	"context"
	"fmt"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// hostImpl implements one host function. args are the guest's arguments as
// wazero passes them; the result is the function's one i32 or i64 result.
type hostImpl func(p *Pod, ctx context.Context, mod api.Module, args []uint64) int64

// callbackImpl implements a host function that belongs to one callback
// (k32_handle or k32_event), given that callback's state.
type callbackImpl func(p *Pod, s *callState, mod api.Module, args []uint64) int64

// duringHandle adapts a host function of k32_handle: outside it, the
// function returns K32_ERR_INVAL (docs/abi.md, "Conventions").
func duringHandle(f callbackImpl) hostImpl { return during(handleState, f) }

// duringEvent adapts a host function of k32_event, likewise.
func duringEvent(f callbackImpl) hostImpl { return during(eventState, f) }

func during(state func(context.Context) *callState, f callbackImpl) hostImpl {
	return func(p *Pod, ctx context.Context, mod api.Module, args []uint64) int64 {
		s := state(ctx)
		if s == nil {
			return int64(abi.ErrInval)
		}
		return f(p, s, mod, args)
	}
}

// hostImpls maps every abi.Functions name to its implementation. A function
// of the table without an entry here fails registration (and a test).
var hostImpls = map[string]hostImpl{
	"k32_log":         k32Log,
	"k32_env_get":     k32EnvGet,
	"k32_time_ms":     k32TimeMs,
	"k32_sleep_ms":    k32SleepMs,
	"k32_random":      k32Random,
	"k32_req_method":  k32ReqMethod,
	"k32_req_path":    k32ReqPath,
	"k32_req_query":   k32ReqQuery,
	"k32_req_header":  k32ReqHeader,
	"k32_req_headers": k32ReqHeaders,
	"k32_req_read":    k32ReqRead,
	"k32_resp_status": k32RespStatus,
	"k32_resp_header": k32RespHeader,
	"k32_resp_write":  k32RespWrite,
	"k32_resp_asset":  k32RespAsset,
	"k32_http_call":   k32HTTPCall,
	"k32_http_status": k32HTTPStatus,
	"k32_http_header": k32HTTPHeader,
	"k32_publish":     k32Publish,
	"k32_event_topic": k32EventTopic,
	"k32_event_data":  k32EventData,
}

// u32 decodes argument i as the u32 (pointer or length) the guest passed.
func u32(args []uint64, i int) uint32 { return api.DecodeU32(args[i]) }

// wasmTypes maps ABI types to wazero value types.
func wasmTypes(ts []abi.Type) []api.ValueType {
	out := make([]api.ValueType, len(ts))
	for i, t := range ts {
		if t.WasmType() == "i64" {
			out[i] = api.ValueTypeI64
		} else {
			out[i] = api.ValueTypeI32
		}
	}
	return out
}

// buildHostModule defines module "k32" from the abi.Functions table: one Go
// function per entry, for the pod whose callback calls it (podOf), behind
// the entry's capability gate (K32_ERR_PERM when the container did not add
// the capability, told to Config.Refused).
func buildHostModule(r wazero.Runtime) (wazero.HostModuleBuilder, error) {
	b := r.NewHostModuleBuilder(abi.Module)
	for _, f := range abi.Functions {
		impl, ok := hostImpls[f.Name]
		if !ok {
			return nil, fmt.Errorf("host function %s.%s has no implementation", abi.Module, f.Name)
		}
		paramTypes := make([]abi.Type, len(f.Params))
		names := make([]string, len(f.Params))
		for i, prm := range f.Params {
			paramTypes[i], names[i] = prm.Type, prm.Name
		}
		results := wasmTypes(f.Results)
		name, gate := f.Name, string(f.Capability)
		fn := api.GoModuleFunc(func(ctx context.Context, mod api.Module, stack []uint64) {
			var v int64
			p := podOf(ctx)
			if p == nil { // a guest runs only in a pod's callback (invoke); never here
				v = int64(abi.ErrInval)
			} else if gate != "" && !p.caps[gate] {
				v = int64(abi.ErrPerm)
				if p.cfg.Refused != nil {
					p.cfg.Refused(name, gate)
				}
			} else {
				if hc := p.hostCosts(); hc != nil {
					meterOf(ctx).charge(hc.Call.Fixed)
				}
				v = impl(p, ctx, mod, stack)
			}
			if len(results) == 0 {
				return
			}
			if results[0] == api.ValueTypeI64 {
				stack[0] = uint64(v)
			} else {
				stack[0] = api.EncodeI32(int32(v))
			}
		})
		b.NewFunctionBuilder().
			WithGoModuleFunction(fn, wasmTypes(paramTypes), results).
			WithParameterNames(names...).
			Export(f.Name)
	}
	return b, nil
}
