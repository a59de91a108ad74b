package abi

import (
	"strings"
	"testing"
)

// TestBoardsAreConsistent checks every profile: a unique name, positive
// budgets that its memory and flash can hold, the stacks the presence of
// PSRAM calls for, and only known features.
func TestBoardsAreConsistent(t *testing.T) {
	known := map[WasmFeature]bool{}
	for _, f := range WasmFeatures {
		if known[f.Feature] {
			t.Errorf("feature %s is listed twice", f.Feature)
		}
		known[f.Feature] = true
	}
	seen := map[string]bool{}
	for _, b := range Boards {
		if b.Name == "" || seen[b.Name] {
			t.Errorf("board %q: empty or duplicate name", b.Name)
		}
		seen[b.Name] = true
		for what, n := range map[string]int64{"SRAM": b.SRAM, "Flash": b.Flash, "PodMemory": b.PodMemory,
			"AppImage": b.AppImage, "FirmwareBase": b.FirmwareBase, "SD": b.SD, "IngressWorkerStack": b.IngressWorkerStack, "EventsStack": b.EventsStack, "InterpreterStack": b.InterpreterStack} {
			if n <= 0 {
				t.Errorf("board %s: %s = %d, want > 0", b.Name, what, n)
			}
		}
		if b.AppImage >= b.Flash {
			t.Errorf("board %s: app image %d does not leave room in a flash of %d", b.Name, b.AppImage, b.Flash)
		}
		if b.FirmwareBase >= b.AppImage/2 {
			t.Errorf("board %s: the firmware's estimate %d leaves less than half the app image %d to the images", b.Name, b.FirmwareBase, b.AppImage)
		}
		wantIngress, wantEvents := int64(IngressWorkerStackInternal), int64(EventsStackInternal)
		if b.PSRAM > 0 {
			wantIngress, wantEvents = IngressWorkerStackPSRAM, EventsStackPSRAM
			if b.PodMemory > b.PSRAM-PSRAMReserve {
				t.Errorf("board %s: pod memory %d exceeds PSRAM less the firmware's reserve (%d)", b.Name, b.PodMemory, b.PSRAM-PSRAMReserve)
			}
		} else if b.PodMemory >= b.SRAM {
			t.Errorf("board %s: pod memory %d leaves no internal RAM of %d to the firmware", b.Name, b.PodMemory, b.SRAM)
		}
		if b.PodMemory%(64<<10) != 0 {
			t.Errorf("board %s: pod memory %d is not whole WebAssembly pages", b.Name, b.PodMemory)
		}
		if b.IngressWorkerStack != wantIngress || b.EventsStack != wantEvents {
			t.Errorf("board %s (PSRAM %d): stacks %d/%d, want %d/%d", b.Name, b.PSRAM, b.IngressWorkerStack, b.EventsStack, wantIngress, wantEvents)
		}
		if b.InProcessCalls() < 1 || b.InProcessCalls() >= CallChainMax {
			t.Errorf("board %s: %d in-process calls in a row, want at least one and fewer than CallChainMax", b.Name, b.InProcessCalls())
		}
		if b.PodRAM() < b.PodMemory {
			t.Errorf("board %s: pod RAM %d below its pod memory %d", b.Name, b.PodRAM(), b.PodMemory)
		}
		if len(b.Features) == 0 {
			t.Errorf("board %s names no features", b.Name)
		}
		for _, f := range b.Features {
			if !known[f] {
				t.Errorf("board %s: feature %q is not in WasmFeatures", b.Name, f)
			}
		}
	}
	for _, name := range []string{"esp32", "esp32-psram", "esp32s3"} {
		if !seen[name] {
			t.Errorf("no board %s", name)
		}
	}
}

// TestNoBoardRunsTheUnsupportedFeatures keeps the features that the boards'
// interpreter lacks out of every profile.
func TestNoBoardRunsTheUnsupportedFeatures(t *testing.T) {
	for _, b := range Boards {
		for _, f := range []WasmFeature{FeatureSIMD, FeatureThreads, FeatureExceptionHandling, FeatureGC,
			FeatureTailCall, FeatureMemory64, FeatureMultimemory, FeatureReferenceTypes} {
			if b.Runs(f) {
				t.Errorf("board %s runs %s", b.Name, f)
			}
		}
		if !b.Runs(FeatureSignExt) {
			t.Errorf("board %s does not run %s", b.Name, FeatureSignExt)
		}
	}
}

func TestLookupBoard(t *testing.T) {
	b, err := LookupBoard("esp32s3")
	if err != nil || b.Flash != 8<<20 || b.PSRAM != 8<<20 {
		t.Errorf("LookupBoard(esp32s3) = %+v, %v", b, err)
	}
	_, err = LookupBoard("esp8266")
	if err == nil || !strings.Contains(err.Error(), `"esp8266"`) || !strings.Contains(err.Error(), "esp32, esp32-psram, esp32s3") {
		t.Errorf("LookupBoard(esp8266) error = %v, want it to name the board and list the known ones", err)
	}
}

// TestInProcessCallsOnTheBoards pins the stack model of docs/calls.md:
// two in-process calls in a row on a board without PSRAM, four with it.
func TestInProcessCallsOnTheBoards(t *testing.T) {
	for name, want := range map[string]int{"esp32": 2, "esp32-psram": 4, "esp32s3": 4} {
		b, err := LookupBoard(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.InProcessCalls(); got != want {
			t.Errorf("%s: %d in-process calls in a row, want %d", name, got, want)
		}
		if left := b.StackLeft(want + 1); left >= InProcessCallStackBoard {
			t.Errorf("%s: %d bytes left after %d callbacks, want less than %d", name, left, want+1, InProcessCallStackBoard)
		}
	}
}

// ChooseBoard takes the first name given (--board before board:), none
// for none, and refuses an unknown one.
func TestChooseBoard(t *testing.T) {
	if b, err := ChooseBoard("", ""); b != nil || err != nil {
		t.Errorf(`ChooseBoard("", "") = %v, %v; want nil, nil`, b, err)
	}
	if b, err := ChooseBoard("esp32s3", "esp32"); err != nil || b.Name != "esp32s3" {
		t.Errorf(`ChooseBoard("esp32s3", "esp32") = %v, %v; want esp32s3`, b, err)
	}
	if b, err := ChooseBoard("", "esp32"); err != nil || b.Name != "esp32" {
		t.Errorf(`ChooseBoard("", "esp32") = %v, %v; want esp32`, b, err)
	}
	if _, err := ChooseBoard("esp64"); err == nil {
		t.Error(`ChooseBoard("esp64") accepted an unknown board`)
	}
}
