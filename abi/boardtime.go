package abi

import (
	"math"
	"time"
)

// Time on the board. The boards run pods on a WebAssembly interpreter on a
// 160–240 MHz core; kube32 serve runs them compiled on a fast one. The local
// runtime counts what each callback does, the WebAssembly instructions it
// executes by class and the host functions it calls, and a board's
// TimeModel turns that into the time the board takes (docs/boards.md, "Time
// on the board", gives the sources of every figure and how far off the
// estimate may be). Everything that shows or enforces board time asks the
// model; nothing else holds a speed.

// InstrClass is a class of WebAssembly instructions that the boards'
// interpreter executes at about the same cost.
type InstrClass int

// The instruction classes.
const (
	// InstrPlain: constants, locals, globals, integer arithmetic,
	// comparisons and conversions, drop, select, nop.
	InstrPlain InstrClass = iota
	// InstrBlock: block, loop, end and else, which an interpreter mostly
	// resolves when it loads the function.
	InstrBlock
	// InstrBranch: br, br_if, br_table, if, return, unreachable.
	InstrBranch
	// InstrMemory: loads and stores, each with its bounds check.
	InstrMemory
	// InstrCall: call, a frame on the interpreter's stack.
	InstrCall
	// InstrCallIndirect: call_indirect, a call through the table with its
	// type check.
	InstrCallIndirect
	// InstrDivide: integer division and remainder (64-bit ones are a
	// library routine on the boards' 32-bit cores).
	InstrDivide
	// InstrFloat32: f32 arithmetic, comparisons and conversions.
	InstrFloat32
	// InstrFloat64: f64 arithmetic, comparisons and conversions, in
	// software on every board (no double-precision unit).
	InstrFloat64
	// InstrBulk: memory.grow, the bulk memory instructions (memory.copy,
	// memory.fill, memory.init, data.drop) and the table instructions.
	InstrBulk

	InstrClasses = iota // how many classes there are
)

// InstructionCycles is what the board's interpreter takes, in cycles of
// its core, for one instruction of each class.
type InstructionCycles struct {
	Plain        float64 `json:"plain"`
	Block        float64 `json:"block"`
	Branch       float64 `json:"branch"`
	Memory       float64 `json:"memory"`
	Call         float64 `json:"call"`
	CallIndirect float64 `json:"callIndirect"`
	Divide       float64 `json:"divide"`
	Float32      float64 `json:"float32"`
	Float64      float64 `json:"float64"`
	Bulk         float64 `json:"bulk"`
}

// Of returns the cycles of one instruction of class c.
func (ic InstructionCycles) Of(c InstrClass) float64 {
	return [InstrClasses]float64{ic.Plain, ic.Block, ic.Branch, ic.Memory, ic.Call,
		ic.CallIndirect, ic.Divide, ic.Float32, ic.Float64, ic.Bulk}[c]
}

// Cost is what one host operation takes on the board, in cycles of its
// core: a fixed part and a part per byte it moves.
type Cost struct {
	Fixed   float64 `json:"fixed"`
	PerByte float64 `json:"perByte"`
}

// Of returns the cycles of one operation on n bytes.
func (c Cost) Of(n int) float64 { return c.Fixed + c.PerByte*float64(n) }

// HostCycles is what the host functions the boards run natively take, in
// cycles of the core, beside the instructions of the guest.
type HostCycles struct {
	// Call is every host function's way out of the interpreter and back.
	Call Cost `json:"call"`
	// RespWrite is k32_resp_write, the bytes handed to lwIP and sent over
	// Wi-Fi.
	RespWrite Cost `json:"respWrite"`
	// RespAsset is k32_resp_asset, a file read from the SD card and sent.
	RespAsset Cost `json:"respAsset"`
	// Log is k32_log and a line of stdout or stderr.
	Log Cost `json:"log"`
	// InProcessCall is a k32_http_call to a pod of the same node, for the
	// request and the answer (the callee's own work adds its board time).
	InProcessCall Cost `json:"inProcessCall"`
	// NodeCall is a k32_http_call to another node or outside the cluster:
	// a round trip over Wi-Fi, per byte of the request and the answer (the
	// other side's own board time adds to it when it reports one).
	NodeCall Cost `json:"nodeCall"`
	// TLSHandshake is the handshake of an https:// call, which the
	// control plane makes (docs/calls.md).
	TLSHandshake float64 `json:"tlsHandshake"`
	// Publish is k32_publish, the message handed to the channel.
	Publish Cost `json:"publish"`
}

// TimeModel is a board's cost model: its core's clock and what its
// interpreter and its host functions take.
type TimeModel struct {
	ClockMHz     float64           `json:"clockMHz"`
	Instructions InstructionCycles `json:"instructionCycles"`
	Host         HostCycles        `json:"hostCycles"`
}

// Duration is the time the board's core takes for cycles cycles.
func (m TimeModel) Duration(cycles float64) time.Duration {
	ns := cycles * 1e3 / m.ClockMHz
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}

// Cycles is the cycles of the board's core in d, the inverse of Duration.
func (m TimeModel) Cycles(d time.Duration) float64 { return float64(d) * m.ClockMHz / 1e3 }

// Millicores is the CPU a pod takes that spent busy of the board's core in
// window, as kubectl top reports it (1000 for the whole core).
func Millicores(busy, window time.Duration) int64 {
	if window <= 0 {
		return 0
	}
	return busy.Milliseconds() * 1000 / max(window.Milliseconds(), 1)
}

// The models of the boards' cores (docs/boards.md, "Time on the board",
// gives every source with its link and the error of each figure).
//
// The instruction figures are those of a threaded WebAssembly interpreter
// (wasm3) on the ESP32 at 240 MHz, fitted to its published measurements:
// fib(24) in 297 ms (wasm3's own table, 150,048 calls and 1.35 million
// other instructions), CoreMark at 8.78 iterations a second (27 million
// cycles for the 804,000 instructions of one iteration), and a thesis's
// matrix product and memory walk. The fit puts a plain instruction at 30
// cycles and a call, with its frame and the register-window spills of an
// interpreter that cannot tail-call on Xtensa, at 220; the measured
// workloads come out within -13% and +6% of it, except tight memory loops,
// which it puts up to 60% slow. The other classes add to the dispatch of a
// plain instruction what the core itself takes: a bounds check and the
// address for memory; the libgcc routine for 64-bit division (89 cycles,
// 32-bit division is in hardware) and for every f64 operation (add 37,
// multiply 108, divide 500 cycles); the FPU's 1 to 4 cycles for f32, but
// 169 for a division, in software on the LX6.
//
// ESP32-S3: Xtensa LX7 at 240 MHz, 2.46 CoreMark/MHz per core against the
// LX6's 2.07, so the interpreter's figures are the ESP32's times 0.84 (no
// interpreter measurement on the S3 is published); its f32 division takes
// 54 cycles. Pod memory is in PSRAM behind the data cache on the boards
// with PSRAM (quad SPI on the ESP32, octal on the S3), which a load or store
// that misses waits for: an estimate of 10 cycles more on average on the
// ESP32 and 6 on the S3.
var (
	timeESP32 = TimeModel{
		ClockMHz: 240,
		Instructions: InstructionCycles{Plain: 30, Block: 6, Branch: 30, Memory: 40, Call: 220,
			CallIndirect: 260, Divide: 60, Float32: 35, Float64: 110, Bulk: 150},
		Host: hostESP32,
	}
	timeESP32PSRAM = func() TimeModel {
		m := timeESP32
		m.Instructions.Memory = 50
		return m
	}()
	timeESP32S3 = TimeModel{
		ClockMHz: 240,
		Instructions: InstructionCycles{Plain: 25, Block: 5, Branch: 25, Memory: 40, Call: 185,
			CallIndirect: 220, Divide: 50, Float32: 27, Float64: 95, Bulk: 130},
		Host: hostESP32,
	}
	// The host functions, the same on every board (the same Wi-Fi, lwIP,
	// FAT and mbedTLS), in cycles at 240 MHz:
	//   - Call: leaving the interpreter for a native function and back,
	//     under 600 cycles measured with wasm3 on the ESP32;
	//   - RespWrite: lwIP's send path (an estimate of 80 µs) and 96 cycles a
	//     byte, the 20 Mbit/s of TCP over the air that ESP-IDF gives;
	//   - RespAsset: opening the file on the card's FAT (about 1 ms) and 240
	//     cycles a byte, reading it over SPI at 1.67 MB/s and sending it;
	//   - Log: a line copied to the node's log buffer (an estimate);
	//   - InProcessCall: copying the request and answer between two pods'
	//     memories and entering the callee (an estimate of 125 µs);
	//   - NodeCall: a TCP connection and an exchange, two Wi-Fi round trips
	//     of about 2.5 ms, and the bytes at 20 Mbit/s;
	//   - TLSHandshake: an ECDHE-ECDSA handshake of mbedTLS, about 1 s on
	//     the ESP32 (measured from 0.8 to 2 s);
	//   - Publish: handing a message to the channel (an estimate).
	hostESP32 = HostCycles{
		Call:          Cost{Fixed: 500},
		RespWrite:     Cost{Fixed: 20_000, PerByte: 96},
		RespAsset:     Cost{Fixed: 250_000, PerByte: 240},
		Log:           Cost{Fixed: 3_000, PerByte: 20},
		InProcessCall: Cost{Fixed: 30_000, PerByte: 10},
		NodeCall:      Cost{Fixed: 1_200_000, PerByte: 96},
		TLSHandshake:  240_000_000,
		Publish:       Cost{Fixed: 20_000, PerByte: 10},
	}
)

// TimeBoard is the board whose model gives a node's board time: the board
// it stands for (serve --board), else the smallest, on which an app that
// is fast enough is fast enough everywhere.
func TimeBoard(b *Board) Board {
	if b != nil {
		return *b
	}
	return Boards[0]
}

// SlowCallbackDefault is the board time past which a callback is slow (one
// [POD] line, marked in the web view) unless serve --slow-callback says
// otherwise: a tenth of a second, past which a person notices the wait.
const SlowCallbackDefault = 100 * time.Millisecond
