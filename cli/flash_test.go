package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
)

// flashCmd runs `kube32 flash args…` and returns its exit code, stdout and
// stderr.
func flashCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ios, _, stdout, stderr := iostreams.Test()
	code := cli.Run(context.Background(), append([]string{"flash"}, args...), ios)
	return code, stdout.String(), stderr.String()
}

// firmwareTree makes an (empty) ESP-IDF project to flash into.
func firmwareTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("project(board)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An edit without a build is not flashed stale: flash builds what the edit
// made stale first, says so, and copies the new module; a broken edit
// flashes nothing.
func TestFlashBuildsWhatIsStaleFirst(t *testing.T) {
	dir := newCApp(t)
	firmware := firmwareTree(t)
	flashed := filepath.Join(firmware, "images", "wasm", "hello.wasm")
	built := filepath.Join(dir, "build", "firmware", "images", "wasm", "hello.wasm")

	// Never built: flash builds it all.
	if code, _, stderr := flashCmd(t, "--firmware", firmware, dir); code != 0 || !strings.Contains(stderr, "built first (stale since the last build): pod hello\n") {
		t.Fatalf("first flash: exit %d, stderr %q", code, stderr)
	}
	first, err := os.ReadFile(flashed)
	if err != nil {
		t.Fatal(err)
	}

	main := filepath.Join(dir, "pods", "hello", "main.c")
	src, _ := os.ReadFile(main)
	edited := strings.Replace(string(src), "GREETING is not set", "GREETING is missing", 1)
	if edited == string(src) {
		t.Fatal("the template's main.c changed: the edit does not apply")
	}
	if err := os.WriteFile(main, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := flashCmd(t, "--firmware", firmware, dir)
	if code != 0 || !strings.Contains(stderr, "built first (stale since the last build): pod hello\n") {
		t.Fatalf("flash after an edit: exit %d, stderr %q", code, stderr)
	}
	got, _ := os.ReadFile(flashed)
	want, _ := os.ReadFile(built)
	if bytes.Equal(got, first) || !bytes.Equal(got, want) || !bytes.Contains(got, []byte("GREETING is missing")) {
		t.Errorf("flash after an edit copied a stale module (%d bytes, the new build has %d)", len(got), len(want))
	}
	if !strings.Contains(stdout, "1 updated") {
		t.Errorf("flash after an edit: stdout %q lacks 1 updated", stdout)
	}

	// Up to date: nothing built, nothing said about it.
	if code, _, stderr := flashCmd(t, "--firmware", firmware, dir); code != 0 || strings.Contains(stderr, "built first") {
		t.Errorf("flash of an up-to-date build: exit %d, stderr %q", code, stderr)
	}

	// A broken edit: the build fails, the firmware tree keeps the last
	// good module.
	if err := os.WriteFile(main, []byte("int broken(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = flashCmd(t, "--firmware", firmware, dir)
	if code != 1 || !strings.Contains(stderr, "kube32: nothing flashed: ") || !strings.Contains(stderr, "pod hello") {
		t.Errorf("flash of a broken pod: exit %d, stderr %q", code, stderr)
	}
	if after, _ := os.ReadFile(flashed); !bytes.Equal(after, want) {
		t.Error("flash of a broken pod changed the firmware tree")
	}
}

// After --firmware, flash says that the firmware is to be built and flashed
// next, and whether anything goes on the card; with --sd, that nothing does.
func TestFlashSaysWhatComesNext(t *testing.T) {
	embedded := newCApp(t)
	firmware := firmwareTree(t)
	nextFirmware := "next: " + firmware + " holds the new images; build the firmware and flash it to the boards as usual"
	const noCard = "nothing of this project goes on the SD card: every image is in the firmware"

	code, stdout, stderr := flashCmd(t, "--firmware", firmware, embedded)
	if code != 0 || !strings.Contains(stdout, nextFirmware) || !strings.Contains(stdout, noCard) {
		t.Errorf("flash --firmware: exit %d, stdout lacks %q or %q:\n%s%s", code, nextFirmware, noCard, stdout, stderr)
	}
	code, stdout, _ = flashCmd(t, "--firmware", firmware, embedded)
	if unchanged := firmware + " already held these images: nothing changed for the firmware"; code != 0 || !strings.Contains(stdout, unchanged) || strings.Contains(stdout, "next:") {
		t.Errorf("second flash --firmware: exit %d, stdout lacks %q:\n%s", code, unchanged, stdout)
	}
	code, stdout, stderr = flashCmd(t, "--sd", t.TempDir(), embedded)
	if code != 0 || !strings.Contains(stdout, noCard+" (kube32 flash --firmware TREE)") {
		t.Errorf("flash --sd of a project with nothing for the card: exit %d, stdout:\n%s%s", code, stdout, stderr)
	}

	onCard := buildEcho(t, "wasm://sd/echo")
	firmware = firmwareTree(t)
	code, stdout, stderr = flashCmd(t, "--firmware", firmware, onCard)
	if code != 0 || !strings.Contains(stdout, "nothing of this project goes in the firmware's images\n") || !strings.Contains(stdout, "next: the SD card gets pod echo: kube32 flash --sd CARD") || strings.Contains(stdout, noCard) {
		t.Errorf("flash --firmware of a project with a pod on the card: exit %d, stdout:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = flashCmd(t, "--sd", t.TempDir(), onCard)
	if code != 0 || strings.Contains(stdout, noCard) || strings.Contains(stdout, "next:") {
		t.Errorf("flash --sd of a project with a pod on the card: exit %d, stdout:\n%s", code, stdout)
	}

	// A dry run only lists.
	if code, stdout, _ := flashCmd(t, "--firmware", firmware, "--dry-run", embedded); code != 0 || strings.Contains(stdout, "next:") {
		t.Errorf("flash --dry-run: exit %d, stdout:\n%s", code, stdout)
	}
	// Even what would go on a card not mounted yet.
	missing := filepath.Join(t.TempDir(), "card")
	code, stdout, stderr = flashCmd(t, "--sd", missing, "--dry-run", onCard)
	if code != 0 || !strings.Contains(stdout, "add       "+filepath.Join(missing, "kube32", "images", "echo.wasm")+"\n") ||
		!strings.Contains(stdout, "note: "+missing+" does not exist yet") {
		t.Errorf("flash --sd MISSING --dry-run: exit %d, want 0 listing the card's files as added:\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the dry run made %s", missing)
	}
}
