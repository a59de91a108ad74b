// Package meter counts the work of a pod's callbacks in the local runtime:
// it rewrites a copy of the module, when the runtime loads it, so that the
// module counts the instructions it executes and what the board's
// interpreter would spend on them (docs/boards.md, "Time on the board").
// The modules that are built and flashed are never changed.
package meter

import (
	"fmt"
	"math"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
)

// The exported globals of an instrumented module: the instructions it has
// executed and their cost on the board in thousandths of a cycle, since the
// runtime last set them, and the cost past which it traps (the board's
// watchdog under serve --board-clock). The runtime zeroes the counters
// before each callback and reads them after.
const (
	InstructionsGlobal = "k32.meter.instructions"
	MillicyclesGlobal  = "k32.meter.millicycles"
	LimitGlobal        = "k32.meter.limit"
)

// NoLimit is the limit that never stops a callback.
const NoLimit = math.MaxInt64

// Instrument returns a copy of wasm that counts its work for the board of
// model: each straight run of instructions (from a block's start or a
// branch to the next one) adds its length and its cost to the counters as
// it begins, so the counts are exact for every run that completes, and the
// same for the same work. At each function entry and loop head the copy
// traps with unreachable once its cost is past the limit. Debug sections
// are left out of the copy: their code offsets would no longer hold.
func Instrument(wasm []byte, model abi.TimeModel) ([]byte, error) {
	w := &walk{}
	for c := range abi.InstrClass(abi.InstrClasses) {
		w.weights[c] = int64(math.Round(model.Instructions.Of(c) * 1000))
	}
	lay, err := modcheck.ReadLayout(wasm, w.instruction)
	if err != nil {
		return nil, fmt.Errorf("counting work: %w", err)
	}
	for _, name := range lay.Exports {
		if strings.HasPrefix(name, "k32.meter.") {
			return nil, fmt.Errorf("counting work: the module already exports %q", name)
		}
	}
	first := lay.ImportedGlobals + lay.Globals
	e := emitter{wasm: wasm, lay: lay, runs: w.runs, instructions: first, millicycles: first + 1, limit: first + 2}
	return e.module(), nil
}

// walk splits each body into runs as ReadLayout reads it.
type walk struct {
	weights [abi.InstrClasses]int64 // thousandths of a cycle per class
	runs    [][]run                 // per body
	cur     run                     // the run being read
}

// run is one straight run of instructions: its bytes in the module, how
// many instructions it has and what they cost, and whether it begins a
// function or a loop, where the limit is checked.
type run struct {
	start, end  int
	count, cost int64
	checks      bool
}

func (w *walk) instruction(body int, in modcheck.Instruction) {
	if len(w.runs) <= body { // a function's first instruction
		w.runs = append(w.runs, nil)
		w.cur = run{start: in.Start, checks: true}
	}
	w.cur.count++
	w.cur.cost += w.weights[classOf(in.Op, in.Sub)]
	switch in.Op {
	case 0x00, 0x02, 0x03, 0x04, 0x05, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F:
		// unreachable block loop if else end br br_if br_table return:
		// what follows is another run (a branch target, or code reached
		// only past a branch). Every body ends with end, which closes its
		// last run.
		w.cur.end = in.End
		w.runs[body] = append(w.runs[body], w.cur)
		w.cur = run{start: in.End, checks: in.Op == 0x03}
	}
}
