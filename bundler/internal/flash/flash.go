package flash

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/bundler/internal/atomicfile"
)

// Options say what to flash where.
type Options struct {
	Build    string    // the project's build directory (holds firmware/ and sd/)
	SD       string    // a mounted card: build/sd/kube32 is copied to SD/kube32
	Firmware string    // a firmware source tree: build/firmware/images is copied to Firmware/images
	DryRun   bool      // list what would change without writing
	Out      io.Writer // progress lines; nil discards them
}

// Ops of a Change.
const (
	opAdd       = "add"
	opUpdate    = "update"
	opUnchanged = "unchanged"
	opRemove    = "remove"
	opCleanup   = "cleanup" // a temporary file an interrupted flash left
)

// Change is what flashing does (or would do) to one target file.
type Change struct {
	Op   string // opAdd, opUpdate, opUnchanged, opRemove or opCleanup
	Path string // the target file
}

// Result lists the changes, in the order they were made.
type Result struct {
	Changes []Change
}

// Count returns how many changes have op.
func (r *Result) Count(op string) int {
	n := 0
	for _, c := range r.Changes {
		if c.Op == op {
			n++
		}
	}
	return n
}

// Changed reports whether the target was changed (or, in a dry run, would
// be): a file added, updated or removed.
func (r *Result) Changed() bool {
	return r.Count(opAdd)+r.Count(opUpdate)+r.Count(opRemove) > 0
}

// copyJob is one tree to copy.
type copyJob struct {
	src, dst string
	// tree is dst with symbolic links resolved: the folder that the staged
	// tree replaces (swap.go).
	tree string
	// shared are directories (relative to src) that hold more than one
	// image, so target files there that the build lacks are left alone;
	// every other directory is a bundle and is mirrored.
	shared map[string]bool
}

// Flash copies the build trees to the targets in opts. Both targets are
// checked before anything is written.
func Flash(opts Options) (*Result, error) {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	if opts.SD == "" && opts.Firmware == "" {
		return nil, errors.New("nothing to flash to: give an SD card path (--sd) or a firmware source tree (--firmware)")
	}
	var jobs []copyJob
	// notes are said after a dry run's summary: what the real flash needs
	// first.
	var notes []string
	// check runs a target's check; a dry run lists what would go into a
	// target that does not exist yet (all of it), and says it must exist.
	check := func(flag, path string, valid func(string) error) error {
		err := valid(path)
		if err == nil {
			return nil
		}
		if _, statErr := os.Stat(path); opts.DryRun && errors.Is(statErr, fs.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("note: %s does not exist yet: flash %s needs it first (%s)", path, flag, missingHint(flag, path)))
			return nil
		}
		return fmt.Errorf("flash %s: %w", flag, err)
	}
	if opts.SD != "" {
		src := filepath.Join(opts.Build, string(images.SD), filepath.FromSlash(images.SDRootDir))
		if err := checkSource(src); err != nil {
			return nil, err
		}
		if err := check("--sd", opts.SD, checkSD); err != nil {
			return nil, err
		}
		jobs = append(jobs, copyJob{src: src, dst: filepath.Join(opts.SD, filepath.FromSlash(images.SDRootDir)),
			shared: map[string]bool{".": true, "images": true}})
	}
	if opts.Firmware != "" {
		src := filepath.Join(opts.Build, string(images.Firmware), filepath.FromSlash(images.FirmwareImagesDir))
		if err := checkSource(src); err != nil {
			return nil, err
		}
		if err := check("--firmware", opts.Firmware, checkFirmware); err != nil {
			return nil, err
		}
		jobs = append(jobs, copyJob{src: src, dst: filepath.Join(opts.Firmware, filepath.FromSlash(images.FirmwareImagesDir)),
			shared: map[string]bool{".": true, "wasm": true, "web": true}})
	}

	res := &Result{}
	skipped := 0
	for _, j := range jobs {
		j.tree = j.dst
		if real, err := filepath.EvalSymlinks(j.dst); err == nil {
			j.tree = real
		}
		if !opts.DryRun {
			if err := recoverSwap(j.tree); err != nil {
				return res, err
			}
		}
		// Leftovers go first: on a nearly full card their space may be
		// what this flash needs.
		temps, err := leftovers(j.dst)
		if err != nil {
			return res, err
		}
		changes := append(swapLeftovers(j.tree), temps...)
		more, n, err := diff(j)
		if err != nil {
			return res, err
		}
		changes = append(changes, more...)
		skipped += n
		if opts.DryRun {
			for _, c := range changes {
				fmt.Fprintf(out, "%-9s %s\n", c.Op, c.Path)
			}
			res.Changes = append(res.Changes, changes...)
			continue
		}
		if err := apply(j, changes, res, out); err != nil {
			return res, err
		}
	}
	if skipped > 0 {
		fmt.Fprintf(out, brotliNote, skipped)
	}
	verb := "flashed"
	if opts.DryRun {
		verb = "dry run, nothing written; would flash"
	}
	fmt.Fprintf(out, "%s: %d added, %d updated, %d removed, %d unchanged", verb,
		res.Count(opAdd), res.Count(opUpdate), res.Count(opRemove), res.Count(opUnchanged))
	if n := res.Count(opCleanup); n > 0 {
		fmt.Fprintf(out, "; %d temporary files of an interrupted flash cleaned up", n) // files or staged folders
	}
	fmt.Fprintln(out)
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
	return res, nil
}

// missingHint says how a target that does not exist yet passes the check
// of its flag (checkSD, checkFirmware).
func missingHint(flag, path string) string {
	if flag == "--sd" {
		return "mount the card there, or mkdir " + path
	}
	return "an ESP-IDF project there, or mkdir -p " + filepath.Join(path, filepath.FromSlash(images.FirmwareImagesDir))
}

// leftovers lists the temporary files under dst that an interrupted flash
// left (a killed process or a pulled card cannot remove its own). Only
// files named as atomicfile names them are listed: nothing else in the
// target is kube32's to remove.
func leftovers(dst string) ([]Change, error) {
	var out []Change
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dst {
			return filepath.SkipAll // nothing flashed yet
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && atomicfile.IsTemp(d.Name()) {
			out = append(out, Change{Op: opCleanup, Path: p})
		}
		return nil
	})
	return out, err
}

func checkSource(src string) error {
	info, err := os.Stat(src)
	if err != nil || !info.IsDir() {
		return fmt.Errorf("nothing to flash: %s does not exist (run `kube32 build` first)", src)
	}
	return nil
}

// diff compares the source tree with the target and lists the changes:
// adds and updates first, then removals. It also counts the .br files it
// leaves out (see boardSkips).
func diff(j copyJob) ([]Change, int, error) {
	var changes, removals []Change
	skipped := 0
	err := filepath.WalkDir(j.src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), atomicfile.TempPrefix) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(j.src, p)
		target := filepath.Join(j.dst, rel)
		if d.IsDir() {
			if !j.shared[filepath.ToSlash(rel)] {
				r, err := extras(j.src, j.dst, rel)
				if err != nil {
					return err
				}
				removals = append(removals, r...)
			}
			return nil
		}
		if boardSkips(j.src, rel) {
			skipped++
			return nil
		}
		op, err := compare(p, target)
		if err != nil {
			return err
		}
		changes = append(changes, Change{Op: op, Path: target})
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return append(changes, removals...), skipped, nil
}

// extras lists the target files of a bundle directory rel that the source
// lacks or that flashing leaves out (directories that the source lacks are
// listed whole).
func extras(src, dst, rel string) ([]Change, error) {
	ents, err := os.ReadDir(filepath.Join(dst, rel))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, e := range ents {
		if atomicfile.IsTemp(e.Name()) {
			continue // a leftover, listed once as such
		}
		_, err := os.Lstat(filepath.Join(src, rel, e.Name()))
		if os.IsNotExist(err) || (err == nil && boardSkips(src, filepath.Join(rel, e.Name()))) {
			out = append(out, Change{Op: opRemove, Path: filepath.Join(dst, rel, e.Name())})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out, nil
}

// compare says whether target must be added, updated or left alone.
func compare(src, target string) (string, error) {
	tinfo, err := os.Stat(target)
	if os.IsNotExist(err) {
		return opAdd, nil
	}
	if err != nil {
		return "", err
	}
	sinfo, err := os.Stat(src)
	if err != nil {
		return "", err
	}
	if tinfo.IsDir() || sinfo.Size() != tinfo.Size() {
		return opUpdate, nil
	}
	a, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(target)
	if err != nil {
		return "", err
	}
	if bytes.Equal(a, b) {
		return opUnchanged, nil
	}
	return opUpdate, nil
}

// apply makes the changes: the leftovers of interrupted flashes are
// removed, then the other changes are made in a staged copy of the target
// that replaces it at once (swap.go), so that the target is never part old
// and part new. A flash that changes nothing writes nothing.
func apply(j copyJob, changes []Change, res *Result, out io.Writer) error {
	writes := false
	for _, c := range changes {
		switch c.Op {
		case opCleanup:
			if err := os.RemoveAll(c.Path); err != nil {
				return fmt.Errorf("flash: %w", err)
			}
			fmt.Fprintf(out, "%-9s %s\n", c.Op, c.Path)
			res.Changes = append(res.Changes, c)
		case opAdd, opUpdate, opRemove:
			writes = true
		}
	}
	if !writes {
		for _, c := range changes {
			if c.Op == opUnchanged {
				res.Changes = append(res.Changes, c)
			}
		}
		return nil
	}
	staging, err := stage(j.tree)
	if err != nil {
		return err
	}
	if err := applyStaged(j, staging, changes, res, out); err != nil {
		os.RemoveAll(staging)
		return fmt.Errorf("flash: %w (the target is unchanged)", err)
	}
	if err := switchIn(staging, j.tree); err != nil {
		return fmt.Errorf("flash: switching %s to the new tree: %w", j.dst, err)
	}
	return nil
}

// applyStaged makes the changes other than cleanups in the staged tree.
func applyStaged(j copyJob, staging string, changes []Change, res *Result, out io.Writer) error {
	for _, c := range changes {
		rel, _ := filepath.Rel(j.dst, c.Path)
		path := filepath.Join(staging, rel)
		switch c.Op {
		case opCleanup:
			continue // done
		case opAdd, opUpdate:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if info, err := os.Lstat(path); err == nil && info.IsDir() {
				// A directory where a file now goes.
				if err := os.RemoveAll(path); err != nil {
					return err
				}
			}
			if err := atomicfile.CopyFile(path, filepath.Join(j.src, rel), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(out, "%-9s %s\n", c.Op, c.Path)
		case opRemove:
			if err := os.RemoveAll(path); err != nil {
				return err
			}
			fmt.Fprintf(out, "%-9s %s\n", c.Op, c.Path)
		}
		res.Changes = append(res.Changes, c)
	}
	return nil
}
