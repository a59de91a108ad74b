package flash

import (
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/treehash"
)

// bigBuild is a build whose card tree has enough files that a flash takes
// a while: 40 modules of 64 KiB and a bundle of 40 files, all changed from
// one version to the next, and the bundle's file list changed too (v2 drops
// gone.txt and adds new.txt).
func bigBuild(t *testing.T, version string) string {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("sd/kube32/images/m%d.wasm", i)] = strings.Repeat(fmt.Sprintf("module %d %s\n", i, version), 64<<10/16)
		files[fmt.Sprintf("sd/kube32/images/site/f%d.txt", i)] = fmt.Sprintf("file %d %s\n", i, version)
	}
	files["sd/kube32/images/site/index.html"] = "<p>" + version + "</p>\n"
	if version == "v1" {
		files["sd/kube32/images/site/gone.txt"] = "gone"
	} else {
		files["sd/kube32/images/site/new.txt"] = "new"
	}
	testenv.WriteFiles(t, dir, files)
	return dir
}

func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	if err := treehash.Write(h, dir, treehash.Options{}); err != nil {
		return "unreadable: " + err.Error()
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// cardAt makes a card flashed with build, holding a file of the user's in
// kube32/ that no flash may lose.
func cardAt(t *testing.T, build string) string {
	t.Helper()
	card := t.TempDir()
	if _, err := Flash(Options{Build: build, SD: card}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(card, "kube32", "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	return card
}

// Issue 19, item 10: a `kube32 flash` process killed with SIGKILL at a
// random point leaves the card's kube32/ tree whole, old or new, never a
// mix of the two (compared by tree hash), and the next flash completes it.
// Twenty kills, at random times within a flash's length.
func TestKilledFlashLeavesTheOldTreeOrTheNewNeverAMix(t *testing.T) {
	v1, v2 := bigBuild(t, "v1"), bigBuild(t, "v2")
	ref := cardAt(t, v1)
	oldHash := treeHash(t, filepath.Join(ref, "kube32"))
	start := time.Now()
	if _, err := Flash(Options{Build: v2, SD: ref}); err != nil {
		t.Fatal(err)
	}
	length := time.Since(start) // how long one flash takes here: the range of the kills
	newHash := treeHash(t, filepath.Join(ref, "kube32"))
	if oldHash == newHash {
		t.Fatal("v1 and v2 flash the same tree")
	}
	if got := readTree(t, ref)["kube32/notes.txt"]; got != "mine" {
		t.Fatalf("the user's notes.txt after a flash: %q", got)
	}

	outcomes := map[string]int{}
	for i := range 20 {
		card := cardAt(t, v1)
		target := filepath.Join(card, "kube32")
		if h := treeHash(t, target); h != oldHash {
			t.Fatalf("try %d: the card before the flash differs from the reference", i+1)
		}
		delay := time.Duration(rand.Int64N(int64(length + length/2)))
		cmd, _ := startChild(t, childFree, v2, card)
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		switch treeHash(t, target) {
		case oldHash:
			outcomes["old"]++
		case newHash:
			outcomes["new"]++
		default:
			t.Fatalf("try %d, killed %v into the flash: kube32/ is neither the old tree nor the new one:\n%s", i+1, delay, keys(readTree(t, target)))
		}

		if _, err := Flash(Options{Build: v2, SD: card}); err != nil {
			t.Fatalf("try %d: the flash after the kill: %v", i+1, err)
		}
		if h := treeHash(t, target); h != newHash {
			t.Fatalf("try %d: after the next flash kube32/ is not the new tree:\n%s", i+1, keys(readTree(t, target)))
		}
		if ents, _ := os.ReadDir(card); len(ents) != 1 {
			t.Fatalf("try %d: the card holds %v after the next flash, want kube32/ alone", i+1, ents)
		}
	}
	t.Logf("one flash took %v here; after the 20 kills the card held the old tree %d times, the new %d", length, outcomes["old"], outcomes["new"])
}

// Where folders cannot be exchanged in one step, the switch is two renames:
// the old tree to the backup, the staged tree in. A flash cut between them
// leaves no kube32/; the next flash (dry runs excepted) puts the whole
// staged tree in and then flashes as usual, and a backup with no staged tree
// beside it goes back. Other leftovers are removed.
func TestFlashCompletesASwitchCutBetweenItsTwoRenames(t *testing.T) {
	v1, v2 := bigBuild(t, "v1"), bigBuild(t, "v2")
	ref := cardAt(t, v1)
	if _, err := Flash(Options{Build: v2, SD: ref}); err != nil {
		t.Fatal(err)
	}
	newHash := treeHash(t, filepath.Join(ref, "kube32"))

	for _, staged := range []bool{true, false} {
		card := cardAt(t, v1)
		target := filepath.Join(card, "kube32")
		oldHash := treeHash(t, target)
		if staged {
			// The first rename of a real flash's switch, cut after it.
			staging, err := stage(target)
			if err != nil {
				t.Fatal(err)
			}
			j := copyJob{src: filepath.Join(v2, "sd", "kube32"), dst: target, tree: target, shared: map[string]bool{".": true, "images": true}}
			changes, _, err := diff(j)
			if err != nil {
				t.Fatal(err)
			}
			if err := applyStaged(j, staging, changes, &Result{}, io.Discard); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Rename(target, backupPath(target)); err != nil {
			t.Fatal(err)
		}
		if err := recoverSwap(target); err != nil {
			t.Fatal(err)
		}
		want := oldHash
		if staged {
			want = newHash
		}
		if h := treeHash(t, target); h != want {
			t.Errorf("staged %v: after recovery kube32/ holds %s", staged, keys(readTree(t, target)))
		}
		if _, err := Flash(Options{Build: v2, SD: card}); err != nil {
			t.Fatal(err)
		}
		if h := treeHash(t, target); h != newHash {
			t.Errorf("staged %v: after the next flash kube32/ holds %s", staged, keys(readTree(t, target)))
		}
		if ents, _ := os.ReadDir(card); len(ents) != 1 {
			t.Errorf("staged %v: the card holds %v, want kube32/ alone", staged, ents)
		}
	}
}
