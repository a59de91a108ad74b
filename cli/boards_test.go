package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
)

// `kube32 boards` prints one row per profile, and -o json the table itself.
func TestBoardsListsEveryProfile(t *testing.T) {
	code, out, errOut := runCLI(t, "boards")
	if code != 0 || errOut != "" {
		t.Fatalf("boards: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1+len(abi.Boards) || !strings.HasPrefix(lines[0], "NAME ") {
		t.Fatalf("boards printed %d lines, want a header and %d boards:\n%s", len(lines), len(abi.Boards), out)
	}
	for i, b := range abi.Boards {
		if fields := strings.Fields(lines[1+i]); fields[0] != b.Name {
			t.Errorf("row %d = %q, want board %s", i+1, lines[1+i], b.Name)
		}
	}
	if got := strings.Join(strings.Fields(lines[1])[:5], " "); got != "esp32 520Ki - 4Mi 128Ki" {
		t.Errorf("the esp32 row does not show 520Ki of SRAM, no PSRAM, 4Mi of flash and 128Ki for pods:\n%s", lines[1])
	}

	// The clock closes each row (docs/boards.md, "Time on the board").
	for i, b := range abi.Boards {
		fields := strings.Fields(lines[1+i])
		if want := fmt.Sprintf("%gMHz", b.Time.ClockMHz); fields[len(fields)-1] != want {
			t.Errorf("row %q ends in %q, want the clock %s", lines[1+i], fields[len(fields)-1], want)
		}
	}
	if fields := strings.Fields(lines[0]); fields[len(fields)-1] != "CLOCK" {
		t.Errorf("the header %q does not end in CLOCK", lines[0])
	}

	code, out, errOut = runCLI(t, "boards", "-o", "json")
	if code != 0 {
		t.Fatalf("boards -o json: exit %d, stderr %q", code, errOut)
	}
	var got []abi.Board
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("boards -o json: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(got, abi.Boards) {
		t.Errorf("boards -o json decodes to\n%+v\nwant abi.Boards\n%+v", got, abi.Boards)
	}
	// Each board carries its time model under "time", by the names
	// docs/boards.md gives them: the clock, the cycles of each instruction
	// class and the host costs.
	var raw []struct {
		Name string `json:"name"`
		Time struct {
			ClockMHz     float64                      `json:"clockMHz"`
			Instructions map[string]float64           `json:"instructionCycles"`
			Host         map[string]jsonRawHostFigure `json:"hostCycles"`
		} `json:"time"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for i, b := range raw {
		want := abi.Boards[i].Time
		if b.Time.ClockMHz != want.ClockMHz || b.Time.ClockMHz <= 0 {
			t.Errorf("%s: time.clockMHz = %g, want %g", b.Name, b.Time.ClockMHz, want.ClockMHz)
		}
		for _, class := range []string{"plain", "block", "branch", "memory", "call", "callIndirect", "divide", "float32", "float64", "bulk"} {
			if b.Time.Instructions[class] <= 0 {
				t.Errorf("%s: time.instructionCycles.%s = %g, want a positive figure", b.Name, class, b.Time.Instructions[class])
			}
		}
		if len(b.Time.Instructions) != abi.InstrClasses {
			t.Errorf("%s: time.instructionCycles has %d classes, want %d", b.Name, len(b.Time.Instructions), abi.InstrClasses)
		}
		for _, op := range []string{"call", "respWrite", "respAsset", "log", "inProcessCall", "nodeCall", "tlsHandshake", "publish"} {
			if _, ok := b.Time.Host[op]; !ok {
				t.Errorf("%s: time.hostCycles has no %s", b.Name, op)
			}
		}
		if got := b.Time.Host["respWrite"].PerByte; got != want.Host.RespWrite.PerByte || got <= 0 {
			t.Errorf("%s: time.hostCycles.respWrite.perByte = %g, want %g", b.Name, got, want.Host.RespWrite.PerByte)
		}
	}
}

// jsonRawHostFigure is a host cost in kube32 boards -o json: a cost of a
// fixed part and a part per byte, or one figure (the TLS handshake).
type jsonRawHostFigure struct{ Fixed, PerByte float64 }

func (f *jsonRawHostFigure) UnmarshalJSON(b []byte) error {
	var n float64
	if json.Unmarshal(b, &n) == nil {
		f.Fixed = n
		return nil
	}
	var c struct {
		Fixed   float64 `json:"fixed"`
		PerByte float64 `json:"perByte"`
	}
	err := json.Unmarshal(b, &c)
	f.Fixed, f.PerByte = c.Fixed, c.PerByte
	return err
}

// An unknown --board is a usage mistake (exit 2) naming the flag and the
// known boards, on build and on serve, before any work starts.
func TestBoardFlagRefusesAnUnknownBoard(t *testing.T) {
	for _, verb := range []string{"build", "serve"} {
		code, out, errOut := runCLI(t, verb, "--board", "esp8266", t.TempDir())
		if code != 2 || out != "" {
			t.Errorf("%s --board esp8266: exit %d, stdout %q; want 2 and nothing", verb, code, out)
		}
		want := `invalid argument "esp8266" for "--board" flag: unknown board "esp8266" (known: ` + strings.Join(abi.BoardNames(), ", ") + ")"
		if !strings.Contains(errOut, want) {
			t.Errorf("%s --board esp8266: stderr %q, want it to contain %q", verb, errOut, want)
		}
	}
}

// The fit report and the JSON name kube32.yaml's board, or the one --board
// picks instead.
func TestBuildNamesTheBoard(t *testing.T) {
	dir := newCApp(t)
	f, err := os.OpenFile(filepath.Join(dir, "kube32.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\nboard: esp32\n")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	build := func(args ...string) string {
		t.Helper()
		ios, _, stdout, stderr := iostreams.Test()
		if code := cli.Run(context.Background(), append([]string{"build", dir}, args...), ios); code != 0 {
			t.Fatalf("build %v: exit %d\n%s", args, code, stderr)
		}
		return stdout.String()
	}
	// Issue 30, item 10: the size table has no empty board row; the fit
	// report's title names the board.
	if out := build(); !regexp.MustCompile(`\ntotal\t[^\n]*\n\nfit for board esp32:\n`).MatchString(out) || strings.Contains(out, "\nboard\t") {
		t.Errorf("the fit report of a project with board: esp32 does not name it after the size table:\n%q", out)
	}
	if out := build("--board", "esp32s3"); !strings.Contains(out, "\n\nfit for board esp32s3:\n") {
		t.Errorf("--board esp32s3 does not override board: esp32 in the fit report:\n%q", out)
	}
	var res struct{ Board string }
	if err := json.Unmarshal([]byte(build("--board", "esp32-psram", "-o", "json")), &res); err != nil || res.Board != "esp32-psram" {
		t.Errorf("build --board esp32-psram -o json: board %q, %v", res.Board, err)
	}
}
