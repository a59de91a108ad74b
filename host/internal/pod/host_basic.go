package pod

import (
	"context"
	"crypto/rand"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// k32Log: (level i32, msg ptr, len u32) -> i32. One line of the pod's log.
func k32Log(p *Pod, _ context.Context, mod api.Module, a []uint64) int64 {
	level := api.DecodeI32(a[0])
	if level < 0 || level > 3 {
		return int64(abi.ErrInval)
	}
	if _, ok := argBytes(mod, a, 1); !ok {
		return int64(abi.ErrFault)
	}
	// Only what a line keeps is copied out of guest memory (log cuts it).
	msg, _ := readString(mod, u32(a, 1), min(u32(a, 2), abi.LogLineMax))
	if hc := p.hostCosts(); hc != nil {
		p.charge(hc.Log.Of(len(msg)))
	}
	p.log("k32", int(level), strings.TrimRight(msg, "\r\n"))
	return 0
}

// k32EnvGet: (key ptr, key_len u32, out ptr, out_cap u32) -> i32.
func k32EnvGet(p *Pod, _ context.Context, mod api.Module, a []uint64) int64 {
	key, ok := argBytes(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	for _, e := range p.cfg.Env {
		if e.Name == string(key) { // compared in place: no copy of the key
			return int64(copyOut(mod, u32(a, 2), u32(a, 3), e.Value))
		}
	}
	return int64(abi.ErrNoEnt)
}

// k32TimeMs: () -> i64. Wall clock in milliseconds since the Unix epoch.
func k32TimeMs(*Pod, context.Context, api.Module, []uint64) int64 {
	return time.Now().UnixMilli()
}

// k32SleepMs: (ms u32) -> i32. The callback's context ends when the pod
// stops or the callback's deadline passes; either interrupts the sleep.
func k32SleepMs(p *Pod, ctx context.Context, _ api.Module, a []uint64) int64 {
	t := time.NewTimer(time.Duration(u32(a, 0)) * time.Millisecond)
	defer t.Stop()
	p.cpu.wait()
	defer p.cpu.resume()
	defer p.waitedSince(time.Now())
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return int64(abi.ErrIntr)
	}
}

// k32Random: (out ptr, len u32) -> i32. Cryptographic random bytes.
func k32Random(_ *Pod, _ context.Context, mod api.Module, a []uint64) int64 {
	out, ok := argBytes(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	if _, err := rand.Read(out); err != nil {
		return int64(abi.ErrIO)
	}
	return 0
}
