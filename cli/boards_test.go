package cli_test

import (
	"context"
	"encoding/json"
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
