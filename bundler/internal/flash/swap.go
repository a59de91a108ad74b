package flash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
)

// A flash never writes into the target tree itself: it stages the whole new
// tree in a sibling folder on the same filesystem, the old tree's files
// linked (or, where the filesystem has no links, copied) and the changes
// written there, then switches the two at once. So a flash killed at any
// point leaves the target whole, old or new (docs/cli.md, "kube32 flash").
//
// The sibling folders are named after the target so that an interrupted
// flash's are recognised, and only those are ever removed.

// stagingPath is where the new tree of dst is staged; after an exchange it
// holds the old tree until removed.
func stagingPath(dst string) string {
	return filepath.Join(filepath.Dir(dst), ".k32flash-"+filepath.Base(dst)+"-new")
}

// backupPath holds the old tree between the two renames of a filesystem
// that cannot exchange two folders at once.
func backupPath(dst string) string {
	return filepath.Join(filepath.Dir(dst), ".k32flash-"+filepath.Base(dst)+"-old")
}

// recoverSwap finishes the one state an interrupted switch can leave
// without a target: the old tree moved to the backup and the whole new tree
// still staged (filesystems without exchange). The new tree goes in, or the
// old one back when no staged tree is left. Every other leftover sits beside
// a whole target and is only removed (swapLeftovers).
func recoverSwap(dst string) error {
	if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	backup := backupPath(dst)
	if _, err := os.Lstat(backup); err != nil {
		return nil // no flash was switching
	}
	from := stagingPath(dst) // staged whole before the old tree moved
	if _, err := os.Lstat(from); err != nil {
		from = backup
	}
	if err := os.Rename(from, dst); err != nil {
		return fmt.Errorf("flash: completing an interrupted flash: %w", err)
	}
	atomicfile.SyncDir(filepath.Dir(dst))
	return nil
}

// swapLeftovers lists the staging and backup folders of an interrupted
// flash beside dst.
func swapLeftovers(dst string) []Change {
	var out []Change
	for _, p := range []string{stagingPath(dst), backupPath(dst)} {
		if info, err := os.Lstat(p); err == nil && info.IsDir() {
			out = append(out, Change{Op: opCleanup, Path: p})
		}
	}
	return out
}

// stage makes a staging folder holding a copy of dst (links where the
// filesystem has them), without the temporary files of earlier flashes,
// and returns it. A dst that does not exist yet stages an empty tree.
func stage(dst string) (string, error) {
	staging := stagingPath(dst)
	if err := os.RemoveAll(staging); err != nil {
		return "", err
	}
	if err := os.Mkdir(staging, 0o755); err != nil {
		return "", err
	}
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dst {
			return filepath.SkipAll
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		to := filepath.Join(staging, rel)
		switch {
		case p == dst:
			return nil
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a file, folder or link, which flash cannot carry to the new tree", p)
		case atomicfile.IsTemp(d.Name()):
			return nil // a leftover: left behind with the old tree
		}
		if os.Link(p, to) == nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return atomicfile.CopyFile(to, p, info.Mode().Perm())
	})
	if err != nil {
		os.RemoveAll(staging)
		return "", fmt.Errorf("flash: staging %s: %w", dst, err)
	}
	return staging, nil
}

// switchIn makes the staged tree the target at once and removes the old
// one. Where the filesystem cannot exchange two folders, the old tree moves
// to the backup first; recoverSwap completes that if it is cut short.
func switchIn(staging, dst string) error {
	syncTree(staging)
	parent := filepath.Dir(dst)
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(staging, dst); err != nil {
			return err
		}
		atomicfile.SyncDir(parent)
		return nil
	}
	err := exchange(staging, dst)
	if err == nil {
		atomicfile.SyncDir(parent)
		return os.RemoveAll(staging) // now the old tree
	}
	if !errors.Is(err, errNoExchange) {
		return err
	}
	backup := backupPath(dst)
	if err := os.RemoveAll(backup); err != nil {
		return err
	}
	if err := os.Rename(dst, backup); err != nil {
		return err
	}
	if err := os.Rename(staging, dst); err != nil {
		os.Rename(backup, dst) // put the old tree back
		return err
	}
	atomicfile.SyncDir(parent)
	return os.RemoveAll(backup)
}

// syncTree syncs the folders of a staged tree, so that the entries made
// there (links, folders) are on the card before it becomes the target; the
// files written were synced as they were written.
func syncTree(root string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			atomicfile.SyncDir(p)
		}
		return nil
	})
}

// errNoExchange says that two folders cannot be exchanged in one step here.
var errNoExchange = errors.New("cannot exchange two folders in one step")
