package build

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
)

// Issue 30, item 10: "try --release" is advised only where a release build
// could plausibly make the build fit: for the app image, when the overrun
// is within what it drops of the modules (their custom sections, and 5 %
// of the rest of a Go module); never in a release build.
func TestFitAdvisesReleaseOnlyWhereItCouldHelp(t *testing.T) {
	esp32, _ := abi.LookupBoard("esp32")
	room := esp32.AppImage - esp32.FirmwareBase
	goPod := func(over int64) []Item {
		return []Item{{Kind: KindPod, Name: "api", Image: "wasm://embedded/api", Module: "firmware/images/wasm/api.wasm", Language: "go",
			ModuleBytes: room + over, CustomBytes: 50 << 10, InitialMemory: 64 << 10}}
	}
	for _, c := range []struct {
		over    int64
		release bool
		advised bool
	}{
		{100 << 10, false, true},  // within 50 KiB of names and 5 % of 2.4 MiB of code
		{250 << 10, false, false}, // beyond them
		{100 << 10, true, false},  // a release build already
	} {
		f := fit(goPod(c.over), nil, &esp32, c.release)
		problems := strings.Join(f.Problems, "\n")
		if !strings.Contains(problems, "app image: ") || strings.Contains(problems, "try --release") != c.advised {
			t.Errorf("over by %d, release %v: %s\nwant try --release advised: %v", c.over, c.release, problems, c.advised)
		}
	}
}
