package flash

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// childEnv makes the test binary a flash process (see TestMain) that
// flashes KUBE32_TEST_BUILD to the card KUBE32_TEST_CARD and stops, waiting
// to be killed, when half of a file is written.
const childEnv = "KUBE32_TEST_FLASH_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		flashChild()
		return
	}
	os.Exit(m.Run())
}

func flashChild() {
	if os.Getenv(childEnv) == childFree {
		fmt.Println("flashing") // then runs free until it ends or is killed
	} else {
		atomicfile.Hook = hookStop
	}
	if _, err := Flash(Options{Build: os.Getenv("KUBE32_TEST_BUILD"), SD: os.Getenv("KUBE32_TEST_CARD")}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// childFree as childEnv's value runs the flash without stopping it.
const childFree = "free"

// hookStop stops the flash half-way through a file, printing the temporary
// files beside it, until the process is killed.
func hookStop(path string) error {
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), atomicfile.TempPrefix+"*"))
	fmt.Println(strings.Join(tmps, " "))
	io.Copy(io.Discard, os.Stdin) // until killed
	return nil
}

// A flash process killed with SIGKILL while it copies a large module keeps
// the previous module, and leaves its half-written temporary file in the
// staged tree beside the card's kube32/, which the next flash (and its dry
// run) reports and removes.
func TestKilledFlashLeavesOldFileAndNextFlashCleansUp(t *testing.T) {
	card := t.TempDir()
	if _, err := Flash(Options{Build: fakeBuild(t, "v1"), SD: card}); err != nil {
		t.Fatal(err)
	}
	build := fakeBuild(t, "v2")
	big := bytes.Repeat([]byte("wasm"), 2<<20) // 8 MiB, the size
	if err := os.WriteFile(filepath.Join(build, "sd", "kube32", "images", "thumb.wasm"), big, 0o644); err != nil {
		t.Fatal(err)
	}

	cmd, line := startChild(t, "1", build, card)
	tmps := strings.Fields(line)
	if len(tmps) != 1 {
		t.Fatalf("temporary files mid-copy: %q", tmps)
	}
	tmp := tmps[0]
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("flash process ended with %v, want killed", err)
	}

	after := readTree(t, card)
	if after["kube32/images/thumb.wasm"] != "thumb v1" {
		t.Errorf("thumb.wasm after the kill = %d bytes, want the old module", len(after["kube32/images/thumb.wasm"]))
	}
	info, err := os.Stat(tmp)
	if err != nil || info.Size() != int64(len(big)/2) {
		t.Fatalf("the killed flash left %v (%v); want its half-written temporary file", info, err)
	}

	var out bytes.Buffer
	res, err := Flash(Options{Build: build, SD: card, DryRun: true, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	staging := filepath.Join(card, ".k32flash-kube32-new")
	if !strings.HasPrefix(tmp, staging+string(filepath.Separator)) {
		t.Errorf("the temporary file %s is not in the staged tree %s", tmp, staging)
	}
	if res.Count(opCleanup) != 1 || !strings.Contains(out.String(), "cleanup   "+staging+"\n") ||
		!strings.Contains(out.String(), "; 1 temporary files of an interrupted flash cleaned up") {
		t.Errorf("dry run: %+v\n%s", res.Changes, out.String())
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Errorf("the dry run removed the leftover: %v", err)
	}

	if _, err := Flash(Options{Build: build, SD: card}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(staging); !os.IsNotExist(err) {
		t.Errorf("leftover still there after a flash: %v", err)
	}
	if got := readTree(t, card)["kube32/images/thumb.wasm"]; got != string(big) {
		t.Errorf("thumb.wasm = %d bytes after the next flash, want %d", len(got), len(big))
	}
}

// Leftovers are found anywhere in the target, shared directories too, and
// only files named as kube32's temporary files are removed.
func TestFlashRemovesOnlyItsOwnLeftovers(t *testing.T) {
	build := fakeBuild(t, "v1")
	fw := t.TempDir()
	ours := []string{
		"images/wasm/.k32tmp-hello.wasm-2837461",
		"images/web/site/.k32tmp-index.html.gz-17",
		"images/.k32tmp-notes-99",
	}
	theirs := []string{
		"images/wasm/.k32tmp-draft",
		"images/wasm/notes.k32tmp-1",
		"images/wasm/.k32tmp-old-site",
		".k32tmp-sdkconfig-5", // outside images/: not flash's
	}
	files := map[string]string{"CMakeLists.txt": "project(x)"}
	for _, f := range append(ours, theirs...) {
		files[f] = "x"
	}
	testenv.WriteFiles(t, fw, files)

	var out bytes.Buffer
	res, err := Flash(Options{Build: build, Firmware: fw, DryRun: true, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ours {
		if !strings.Contains(out.String(), "cleanup   "+filepath.Join(fw, f)+"\n") {
			t.Errorf("dry run does not list %s:\n%s", f, out.String())
		}
	}
	if res.Count(opCleanup) != len(ours) || res.Count(opRemove) != 0 {
		t.Errorf("dry run changes %+v", res.Changes)
	}
	if keys(readTree(t, fw)) != keys(files) {
		t.Errorf("the dry run removed files: %s", keys(readTree(t, fw)))
	}

	if _, err := Flash(Options{Build: build, Firmware: fw}); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, fw)
	for _, f := range ours {
		if _, ok := got[f]; ok {
			t.Errorf("%s kept", f)
		}
	}
	for _, f := range theirs {
		if _, ok := got[f]; !ok {
			t.Errorf("%s removed: not kube32's", f)
		}
	}
}

// startChild starts this test binary as a flash process (childEnv=mode) of
// build onto card and returns it with the first line it wrote, which it
// writes mid-flash; the test fails when it ends before. Its stdin stays
// open until the test ends.
func startChild(t *testing.T, mode, build, card string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "KUBE32_TEST_BUILD="+build, "KUBE32_TEST_CARD="+card)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("the flash process (%s) ended before writing: %v\n%s", mode, err, stderr.String())
	}
	return cmd, line
}
