package flash

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// readTree maps every file under dir to its contents.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return err
	})
	return out
}

func keys(m map[string]string) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return strings.Join(k, " ")
}

// fakeBuild is a build directory as `kube32 build` writes it.
func fakeBuild(t *testing.T, version string) string {
	return testenv.Tree(t, map[string]string{
		"firmware/images/wasm/hello.wasm":        "hello " + version,
		"firmware/images/web/site/index.html.gz": "site " + version,
		"firmware/images/web/hello/a.txt":        "asset",
		"sd/kube32/images/thumb.wasm":            "thumb " + version,
		"sd/kube32/images/thumb/logo.png":        "png",
	})
}

func TestFlashBothTargets(t *testing.T) {
	build := fakeBuild(t, "v1")
	card := t.TempDir()
	fw := testenv.Tree(t, map[string]string{"CMakeLists.txt": "project(x)", "images/wasm/other.wasm": "keep me"})
	var out bytes.Buffer
	res, err := Flash(Options{Build: build, SD: card, Firmware: fw, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(readTree(t, card)); got != "kube32/images/thumb.wasm kube32/images/thumb/logo.png" {
		t.Errorf("card: %s", got)
	}
	want := "CMakeLists.txt images/wasm/hello.wasm images/wasm/other.wasm images/web/hello/a.txt images/web/site/index.html.gz"
	if got := keys(readTree(t, fw)); got != want {
		t.Errorf("firmware tree:\n  %s\nwant\n  %s", got, want)
	}
	if res.Count(opAdd) != 5 || !strings.Contains(out.String(), "flashed: 5 added, 0 updated, 0 removed, 0 unchanged") {
		t.Errorf("result %+v\n%s", res, out.String())
	}

	// Again: identical files are skipped.
	res, err = Flash(Options{Build: build, SD: card, Firmware: fw})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count(opUnchanged) != 5 || len(res.Changes) != 5 {
		t.Errorf("second flash: %+v", res.Changes)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	build := fakeBuild(t, "v2")
	card := testenv.Tree(t, map[string]string{
		"kube32/images/thumb.wasm":       "thumb v1",
		"kube32/images/thumb/logo.png":   "png",
		"kube32/images/thumb/old.css.gz": "stale",
		"kube32/images/other.wasm":       "not ours to remove",
	})
	before := readTree(t, card)
	var out bytes.Buffer
	res, err := Flash(Options{Build: build, SD: card, DryRun: true, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	after := readTree(t, card)
	if keys(before) != keys(after) || after["kube32/images/thumb.wasm"] != "thumb v1" {
		t.Errorf("dry run wrote: %v", after)
	}
	text := out.String()
	for _, want := range []string{
		"update    " + filepath.Join(card, "kube32/images/thumb.wasm"),
		"unchanged " + filepath.Join(card, "kube32/images/thumb/logo.png"),
		"remove    " + filepath.Join(card, "kube32/images/thumb/old.css.gz"),
		"dry run, nothing written; would flash: 0 added, 1 updated, 1 removed, 1 unchanged",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, text)
		}
	}
	if len(res.Changes) != 3 {
		t.Errorf("changes %+v", res.Changes)
	}

	// The real flash does what the dry run listed and leaves other images.
	if _, err := Flash(Options{Build: build, SD: card}); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, card)
	if got["kube32/images/thumb.wasm"] != "thumb v2" || got["kube32/images/other.wasm"] == "" {
		t.Errorf("after flash: %v", got)
	}
	if _, ok := got["kube32/images/thumb/old.css.gz"]; ok {
		t.Error("stale bundle file kept")
	}
}

func TestRefusesBadTargets(t *testing.T) {
	build := fakeBuild(t, "v1")
	notCard := testenv.Tree(t, map[string]string{"Documents/cv.odt": "x"})
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	notFirmware := testenv.Tree(t, map[string]string{"notes.txt": "x"})

	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no target", Options{Build: build}, "nothing to flash to"},
		{"missing card", Options{Build: build, SD: filepath.Join(notCard, "nope")}, "does not exist"},
		{"card is a file", Options{Build: build, SD: file}, "is not a directory"},
		{"not a card", Options{Build: build, SD: notCard}, "does not look like an SD card: it is not a mount point, has no kube32/ directory and is not empty (it holds Documents)"},
		{"not firmware", Options{Build: build, Firmware: notFirmware}, "does not look like a firmware source tree: it has no CMakeLists.txt, sdkconfig, main/ or images/"},
		{"no build", Options{Build: t.TempDir(), SD: t.TempDir()}, "nothing to flash:"},
		// The card is fine but the firmware is not: nothing may be written.
		{"second target bad", Options{Build: build, SD: t.TempDir(), Firmware: notFirmware}, "flash --firmware"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Flash(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Flash = %v, want error containing %q", err, tc.want)
			}
			if res != nil && len(res.Changes) > 0 {
				t.Errorf("wrote %v", res.Changes)
			}
			if tc.opts.SD != "" {
				if _, err := os.Stat(filepath.Join(tc.opts.SD, "kube32")); err == nil && tc.name == "second target bad" {
					t.Error("card written although the firmware target was refused")
				}
			}
		})
	}
}

func TestAcceptedTargets(t *testing.T) {
	empty := testenv.Tree(t, map[string]string{".Trashes/x": "", "System Volume Information/y": ""})
	if err := checkSD(empty); err != nil {
		t.Errorf("empty card: %v", err)
	}
	prepared := testenv.Tree(t, map[string]string{"photos/a.jpg": "", "kube32/x": ""})
	if err := checkSD(prepared); err != nil {
		t.Errorf("card with kube32/: %v", err)
	}
	for _, marker := range []string{"sdkconfig", "main/app.c", "images/wasm/x.wasm"} {
		dir := testenv.Tree(t, map[string]string{marker: ""})
		if err := checkFirmware(dir); err != nil {
			t.Errorf("firmware with %s: %v", marker, err)
		}
	}
}

func TestInterruptedFlashKeepsOldFiles(t *testing.T) {
	card := t.TempDir()
	if _, err := Flash(Options{Build: fakeBuild(t, "v1"), SD: card}); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, card, map[string]string{"kube32/images/thumb/stale.txt": "old"})
	before := readTree(t, card)

	// The card is pulled while thumb.wasm is half written.
	atomicfile.Hook = func(path string) error {
		if filepath.Base(path) == "thumb.wasm" {
			return errors.New("input/output error")
		}
		return nil
	}
	defer func() { atomicfile.Hook = nil }()
	_, err := Flash(Options{Build: fakeBuild(t, "v2"), SD: card})
	if err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("Flash = %v", err)
	}
	after := readTree(t, card)
	if keys(after) != keys(before) {
		t.Errorf("files after the failed flash:\n  %s\nwant\n  %s", keys(after), keys(before))
	}
	if after["kube32/images/thumb.wasm"] != "thumb v1" {
		t.Errorf("thumb.wasm = %q, want the old module intact", after["kube32/images/thumb.wasm"])
	}
}

// A dry run to a card or a firmware tree that does not exist yet lists
// everything as added, says the path must exist for the flash itself, and
// creates nothing; the flash itself still refuses the missing path.
func TestDryRunToAMissingTargetListsEverythingNew(t *testing.T) {
	build := fakeBuild(t, "v1")
	card, fw := filepath.Join(t.TempDir(), "card"), filepath.Join(t.TempDir(), "fw")
	var out bytes.Buffer
	res, err := Flash(Options{Build: build, SD: card, Firmware: fw, DryRun: true, Out: &out})
	if err != nil {
		t.Fatalf("dry run to missing targets: %v", err)
	}
	text := out.String()
	for _, want := range []string{
		"add       " + filepath.Join(card, "kube32/images/thumb.wasm") + "\n",
		"add       " + filepath.Join(card, "kube32/images/thumb/logo.png") + "\n",
		"add       " + filepath.Join(fw, "images/wasm/hello.wasm") + "\n",
		"add       " + filepath.Join(fw, "images/web/site/index.html.gz") + "\n",
		"add       " + filepath.Join(fw, "images/web/hello/a.txt") + "\n",
		"dry run, nothing written; would flash: 5 added, 0 updated, 0 removed, 0 unchanged\n",
		"note: " + card + " does not exist yet: flash --sd needs it first (mount the card there, or mkdir " + card + ")\n",
		"note: " + fw + " does not exist yet: flash --firmware needs it first (an ESP-IDF project there, or mkdir -p " + filepath.Join(fw, "images") + ")\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, text)
		}
	}
	if res.Count(opAdd) != 5 || len(res.Changes) != 5 {
		t.Errorf("changes %+v, want the 5 files added", res.Changes)
	}
	for _, p := range []string{card, fw} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dry run made %s (%v)", p, err)
		}
	}

	for _, opts := range []Options{{Build: build, SD: card}, {Build: build, Firmware: fw}} {
		if _, err := Flash(opts); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("flash to a missing target: %v, want it refused", err)
		}
	}
	// An existing path that is no target is refused by a dry run too.
	if _, err := Flash(Options{Build: build, Firmware: t.TempDir(), DryRun: true}); err == nil || !strings.Contains(err.Error(), "does not look like a firmware source tree") {
		t.Errorf("dry run to a folder that is no firmware tree: %v, want it refused", err)
	}
}
