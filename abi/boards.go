package abi

import (
	"fmt"
	"strings"
)

// The boards a kube32 app runs on, as data: what each has for the pods
// (memory, flash, card, stacks) and which WebAssembly features its
// interpreter runs. kube32.yaml's board: field and the --board flags name a
// row of Boards; docs/boards.md is generated from this file. To add a board,
// add a row: the tests of this package check that its budgets are positive
// and consistent and that it names only known features.

// Board is the profile of one kind of board. Sizes are in bytes.
type Board struct {
	Name string `json:"name"` // as kube32.yaml's board: and --board name it
	Doc  string `json:"doc"`  // the chip and module class, one line

	SRAM  int64 `json:"sramBytes"`  // internal RAM
	PSRAM int64 `json:"psramBytes"` // PSRAM the firmware can map; 0 without
	Flash int64 `json:"flashBytes"`

	// PodMemory is the linear memory that a node's pods may take together:
	// from PSRAM less PSRAMReserve where there is PSRAM, else what internal
	// RAM has left beside Wi-Fi, lwIP and the runtime.
	PodMemory int64 `json:"podMemoryBytes"`
	// AppImage is the factory app partition of the default partition table
	// (AppPartition): the firmware with build/firmware/ inside must fit it.
	AppImage int64 `json:"appImageBytes"`
	// FirmwareBase is the share of AppImage that the firmware itself takes
	// before build/firmware/ is added: an estimate (FirmwareBaseEstimate),
	// not a measurement, until the firmware's own build reports it.
	FirmwareBase int64 `json:"firmwareBaseBytes"`
	// SD is what build/sd/ may take on the card (SDCardBudget).
	SD int64 `json:"sdBytes"`

	// IngressWorkerStack and EventsStack are the stacks of the ingress
	// worker and of the k32_events thread: in PSRAM on boards with it, in
	// internal RAM without.
	IngressWorkerStack int64 `json:"ingressWorkerStackBytes"`
	EventsStack        int64 `json:"eventsStackBytes"`
	// InterpreterStack is the node's shared interpreter stack, on which
	// every pod callback runs, and with it the in-process calls of a call
	// chain (CallbackStack each; docs/calls.md).
	InterpreterStack int64 `json:"interpreterStackBytes"`

	// Features are the WebAssembly features beyond the MVP that the
	// board's interpreter runs; a module using another one fails there.
	Features []WasmFeature `json:"wasmFeatures"`

	// Time is the cost model of the board's core and interpreter: how long
	// the board takes for the work a callback does (boardtime.go).
	Time TimeModel `json:"time"`
}

// WasmFeature is a post-MVP WebAssembly feature, by binaryen's name for it
// (wasm-opt --enable-<name>).
type WasmFeature string

// The features every board's interpreter runs, beyond the MVP.
const (
	FeatureMutableGlobals        WasmFeature = "mutable-globals"
	FeatureSignExt               WasmFeature = "sign-ext"
	FeatureNontrappingFloatToInt WasmFeature = "nontrapping-float-to-int"
	FeatureBulkMemory            WasmFeature = "bulk-memory"
	FeatureMultivalue            WasmFeature = "multivalue"
)

// Features no board's interpreter runs (wazero runs some of them, so a
// module using one can pass under kube32 serve and fail on a board).
const (
	FeatureSIMD              WasmFeature = "simd"
	FeatureThreads           WasmFeature = "threads"
	FeatureExceptionHandling WasmFeature = "exception-handling"
	FeatureGC                WasmFeature = "gc"
	FeatureTailCall          WasmFeature = "tail-call"
	FeatureMemory64          WasmFeature = "memory64"
	FeatureMultimemory       WasmFeature = "multimemory"
	FeatureReferenceTypes    WasmFeature = "reference-types"
)

// WasmFeatureInfo describes one feature for docs/boards.md.
type WasmFeatureInfo struct {
	Feature WasmFeature
	Doc     string
}

// WasmFeatures is every feature a board profile may name or that the
// module checker knows to refuse, the boards' own first.
var WasmFeatures = []WasmFeatureInfo{
	{FeatureMutableGlobals, "Import and export of mutable globals."},
	{FeatureSignExt, "Sign-extension operators (i32.extend8_s, …)."},
	{FeatureNontrappingFloatToInt, "Saturating float-to-int conversions (i32.trunc_sat_f32_s, …)."},
	{FeatureBulkMemory, "memory.copy, memory.fill and passive data segments."},
	{FeatureMultivalue, "Functions and blocks with several results."},
	{FeatureSIMD, "128-bit SIMD (v128)."},
	{FeatureThreads, "Shared memory and atomics."},
	{FeatureExceptionHandling, "try, catch and throw."},
	{FeatureGC, "Garbage-collected structs and arrays."},
	{FeatureTailCall, "return_call and return_call_indirect."},
	{FeatureMemory64, "64-bit memory indexes."},
	{FeatureMultimemory, "More than one memory."},
	{FeatureReferenceTypes, "externref, funcref values and several tables."},
}

// boardFeatures is what the boards' interpreter runs beyond the MVP.
var boardFeatures = []WasmFeature{FeatureMutableGlobals, FeatureSignExt, FeatureNontrappingFloatToInt, FeatureBulkMemory, FeatureMultivalue}

// The default partition table of every board, for a flash of F bytes:
// second-stage bootloader and partition table below 0x9000, nvs (24 KiB at
// 0x9000), phy_init (4 KiB at 0xF000), one factory app partition from
// 0x10000 and a 64 KiB coredump partition at the end. There is no OTA slot:
// the app partition takes all that the others leave.
const (
	appPartitionOffset = 64 << 10
	coredumpPartition  = 64 << 10
)

// AppPartition is the factory app partition of the default partition table
// on a flash of the given size.
func AppPartition(flash int64) int64 { return flash - appPartitionOffset - coredumpPartition }

// SDCardBudget is what build/sd/ may take on a board's card: the profiles
// assume a FAT32 partition of 1 GiB, which every card holds.
const SDCardBudget = 1 << 30

// FirmwareBaseEstimate is what the profiles assume the firmware takes of
// the app partition without any image: ESP-IDF with Wi-Fi, lwIP, mbedTLS,
// the HTTP server and the WebAssembly interpreter, which such builds put at
// 1.2 to 1.5 MiB. It is an estimate at the top of that range, so that
// kube32 build errs on the side of refusing.
const FirmwareBaseEstimate = 1536 << 10

// PSRAMReserve is the PSRAM that the firmware keeps for itself on boards
// with PSRAM (TLS sessions with their stacks and buffers, the NAT table,
// the ingress worker and k32_events stacks); the pods have the rest.
const PSRAMReserve = 512 << 10

// Boards is every board profile.
var Boards = []Board{
	{
		Name: "esp32", Doc: "ESP32 (WROOM class) without PSRAM",
		SRAM: 520 << 10, Flash: 4 << 20,
		PodMemory: 128 << 10, // two 64 KiB pages of internal RAM
		AppImage:  AppPartition(4 << 20), FirmwareBase: FirmwareBaseEstimate, SD: SDCardBudget,
		IngressWorkerStack: IngressWorkerStackInternal, EventsStack: EventsStackInternal,
		InterpreterStack: InterpreterStackInternal,
		Features:         boardFeatures,
		Time:             timeESP32,
	},
	{
		Name: "esp32-psram", Doc: "ESP32 with PSRAM (WROVER class; 4 MiB of it mapped)",
		SRAM: 520 << 10, PSRAM: 4 << 20, Flash: 4 << 20,
		PodMemory: 4<<20 - PSRAMReserve,
		AppImage:  AppPartition(4 << 20), FirmwareBase: FirmwareBaseEstimate, SD: SDCardBudget,
		IngressWorkerStack: IngressWorkerStackPSRAM, EventsStack: EventsStackPSRAM,
		InterpreterStack: InterpreterStackPSRAM,
		Features:         boardFeatures,
		Time:             timeESP32PSRAM,
	},
	{
		Name: "esp32s3", Doc: "ESP32-S3 N8R8 (8 MiB flash, 8 MiB octal PSRAM)",
		SRAM: 512 << 10, PSRAM: 8 << 20, Flash: 8 << 20,
		PodMemory: 8<<20 - PSRAMReserve,
		AppImage:  AppPartition(8 << 20), FirmwareBase: FirmwareBaseEstimate, SD: SDCardBudget,
		IngressWorkerStack: IngressWorkerStackPSRAM, EventsStack: EventsStackPSRAM,
		InterpreterStack: InterpreterStackPSRAM,
		Features:         boardFeatures,
		Time:             timeESP32S3,
	},
	{
		Name: "esp32s3-n16r8", Doc: "ESP32-S3 N16R8 (16 MiB flash, 8 MiB octal PSRAM)",
		SRAM: 512 << 10, PSRAM: 8 << 20, Flash: 16 << 20,
		PodMemory: 8<<20 - PSRAMReserve,
		AppImage:  AppPartition(16 << 20), FirmwareBase: FirmwareBaseEstimate, SD: SDCardBudget,
		IngressWorkerStack: IngressWorkerStackPSRAM, EventsStack: EventsStackPSRAM,
		InterpreterStack: InterpreterStackPSRAM,
		Features:         boardFeatures,
		Time:             timeESP32S3,
	},
}

// PodRAM is the RAM that a node's pods take their memory from, PSRAM where
// the board has it, else internal RAM: a node's status.capacity.memory
// under serve --board, of which PodMemory is the allocatable part.
func (b Board) PodRAM() int64 {
	if b.PSRAM > 0 {
		return b.PSRAM
	}
	return b.SRAM
}

// MaxPods is how many pods a node of b holds: one per WebAssembly page
// (64 KiB) of pod memory, the least a pod takes. It is the pods of the
// Node's capacity and allocatable under serve --board.
func (b Board) MaxPods() int64 { return b.PodMemory / wasmPage }

// wasmPage is the size of a WebAssembly page.
const wasmPage = 64 << 10

// StackLeft is what b's interpreter stack has free while callbacks pod
// callbacks are on it: the first entered from outside (the Ingress, the
// pod port, an event), each other by an in-process call of the one before.
func (b Board) StackLeft(callbacks int) int64 {
	return b.InterpreterStack - int64(callbacks)*CallbackStack
}

// InProcessCalls is how many in-process calls in a row a callback entered
// from outside can make on b: each needs InProcessCallStackBoard free; the
// next fails with ErrNoMem.
func (b Board) InProcessCalls() int {
	n := 0
	for b.StackLeft(n+1) >= InProcessCallStackBoard {
		n++
	}
	return n
}

// LookupBoard returns the profile named name; an unknown name is an error
// that lists the known ones.
func LookupBoard(name string) (Board, error) {
	for _, b := range Boards {
		if b.Name == name {
			return b, nil
		}
	}
	return Board{}, fmt.Errorf("unknown board %q (known: %s)", name, strings.Join(BoardNames(), ", "))
}

// ChooseBoard returns the profile named by the first of names that is not
// empty (a --board flag before kube32.yaml's board:), or nil when all are.
func ChooseBoard(names ...string) (*Board, error) {
	for _, name := range names {
		if name == "" {
			continue
		}
		b, err := LookupBoard(name)
		if err != nil {
			return nil, err
		}
		return &b, nil
	}
	return nil, nil
}

// BoardNames are the names of Boards, in order.
func BoardNames() []string {
	names := make([]string, len(Boards))
	for i, b := range Boards {
		names[i] = b.Name
	}
	return names
}

// Runs reports whether the board's interpreter runs feature.
func (b Board) Runs(feature WasmFeature) bool {
	for _, f := range b.Features {
		if f == feature {
			return true
		}
	}
	return false
}

// CommonFeatures are the features every board of Boards runs: what a module
// built for no board in particular may use.
func CommonFeatures() []WasmFeature {
	var common []WasmFeature
	for _, f := range Boards[0].Features {
		all := true
		for _, b := range Boards[1:] {
			all = all && b.Runs(f)
		}
		if all {
			common = append(common, f)
		}
	}
	return common
}
