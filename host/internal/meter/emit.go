package meter

import (
	"strings"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/abi/wasmbin"
)

// emitter writes the instrumented copy of a module.
type emitter struct {
	wasm []byte
	lay  *modcheck.Layout
	runs [][]run
	// the indexes of the new globals
	instructions, millicycles, limit uint32
}

// Section ids and the order the binary format puts them in (custom
// sections, id 0, may stand anywhere).
const (
	sectionGlobal = 6
	sectionExport = 7
	sectionCode   = 10
)

var sectionOrder = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

func (e *emitter) module() []byte {
	out := make([]byte, 0, len(e.wasm)+len(e.wasm)/2)
	out = append(out, e.wasm[:8]...) // magic and version
	wroteGlobals, wroteExports := false, false
	for _, s := range e.lay.Sections {
		// A missing global or export section goes where it belongs.
		if !wroteGlobals && s.ID != 0 && sectionOrder[s.ID] > sectionOrder[sectionGlobal] {
			out, wroteGlobals = wasmbin.AppendSection(out, sectionGlobal, e.globals(nil)), true
		}
		if !wroteExports && s.ID != 0 && sectionOrder[s.ID] > sectionOrder[sectionExport] {
			out, wroteExports = wasmbin.AppendSection(out, sectionExport, e.exports(nil)), true
		}
		switch s.ID {
		case 0:
			if strings.HasPrefix(s.Name, ".debug_") {
				continue
			}
			out = append(out, e.wasm[s.Start:s.End]...)
		case sectionGlobal:
			out, wroteGlobals = wasmbin.AppendSection(out, s.ID, e.globals(&s)), true
		case sectionExport:
			out, wroteExports = wasmbin.AppendSection(out, s.ID, e.exports(&s)), true
		case sectionCode:
			out = wasmbin.AppendSection(out, s.ID, e.code())
		default:
			out = append(out, e.wasm[s.Start:s.End]...)
		}
	}
	if !wroteGlobals {
		out = wasmbin.AppendSection(out, sectionGlobal, e.globals(nil))
	}
	if !wroteExports {
		out = wasmbin.AppendSection(out, sectionExport, e.exports(nil))
	}
	return out
}

// globals is the global section payload with the three counters after the
// module's own globals (old, nil for none): mutable i64s, the counters at
// 0 and the limit at NoLimit.
func (e *emitter) globals(old *modcheck.Section) []byte {
	out := e.items(old, 3)
	for _, init := range []int64{0, 0, NoLimit} {
		out = append(out, 0x7E, 0x01, 0x42) // i64, mutable, i64.const
		out = wasmbin.AppendS64(out, init)
		out = append(out, 0x0B) // end
	}
	return out
}

// exports is the export section payload with the counters' exports after
// the module's own.
func (e *emitter) exports(old *modcheck.Section) []byte {
	out := e.items(old, 3)
	for _, g := range []struct {
		name  string
		index uint32
	}{{InstructionsGlobal, e.instructions}, {MillicyclesGlobal, e.millicycles}, {LimitGlobal, e.limit}} {
		out = wasmbin.AppendName(out, g.name)
		out = append(out, 0x03) // a global
		out = wasmbin.AppendU32(out, g.index)
	}
	return out
}

// items starts the payload of a vector section that gets more items after
// those of old (nil for a section the module does not have): the new count,
// then old's items.
func (e *emitter) items(old *modcheck.Section, more uint32) []byte {
	if old == nil {
		return wasmbin.AppendU32(nil, more)
	}
	out := wasmbin.AppendU32(nil, old.Count+more)
	return append(out, e.wasm[old.Items:old.End]...)
}

// code is the code section payload: each body with its runs charged.
func (e *emitter) code() []byte {
	out := wasmbin.AppendU32(nil, uint32(len(e.lay.Bodies)))
	var body []byte
	for i, b := range e.lay.Bodies {
		body = append(body[:0], e.wasm[b.Start:b.Code]...) // the locals
		for _, r := range e.runs[i] {
			body = e.charge(body, r)
			body = append(body, e.wasm[r.start:r.end]...)
		}
		out = wasmbin.AppendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	return out
}

// charge appends the instructions that add r's count and cost to the
// counters and, where r checks, trap once the cost is past the limit. They
// leave the operand stack as they found it, so they may stand anywhere.
func (e *emitter) charge(out []byte, r run) []byte {
	if r.count == 0 {
		return out
	}
	add := func(out []byte, global uint32, n int64) []byte {
		out = append(out, 0x23) // global.get
		out = wasmbin.AppendU32(out, global)
		out = append(out, 0x42) // i64.const
		out = wasmbin.AppendS64(out, n)
		out = append(out, 0x7C, 0x24) // i64.add global.set
		return wasmbin.AppendU32(out, global)
	}
	out = add(out, e.instructions, r.count)
	out = add(out, e.millicycles, r.cost)
	if r.checks {
		out = append(out, 0x23)
		out = wasmbin.AppendU32(out, e.millicycles)
		out = append(out, 0x23)
		out = wasmbin.AppendU32(out, e.limit)
		out = append(out, 0x56, 0x04, 0x40, 0x00, 0x0B) // i64.gt_u if (no result) unreachable end
	}
	return out
}
