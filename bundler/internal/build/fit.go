package build

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/abi/modcheck"
)

// Fit is how a build fits a board (docs/cli.md, "The fit report"): the
// figures of each pod, and the totals against the board's budgets. Without
// a board it holds the figures alone, with no budget and no verdict.
type Fit struct {
	Board   string   `json:"board"` // "" for none
	Pods    []PodFit `json:"pods"`
	Budgets []Budget `json:"budgets"`
	// Problems say what does not fit, by how much and what would help, one
	// sentence each; a build with any fails with a *FitError.
	Problems []string `json:"problems"`
}

// PodFit is the fit of one pod's module. Sizes are in bytes.
type PodFit struct {
	Name          string `json:"name"`
	Language      string `json:"language"`
	Storage       string `json:"storage"` // "firmware" or "sd": where its image is stored
	ModuleBytes   int64  `json:"moduleBytes"`
	InitialMemory int64  `json:"initialMemoryBytes"`
	MaxMemory     int64  `json:"maxMemoryBytes"`   // declared by the module; 0 = none
	MemoryLimit   int64  `json:"memoryLimitBytes"` // resources.limits.memory; 0 = none
	// Counted is what the pod counts against the board's pod memory: its
	// memory limit, or its initial memory when no Pod sets one.
	Counted int64 `json:"countedMemoryBytes"`
	// StackBytes is the stack the module was linked with (modcheck.Report);
	// 0 for Go, whose goroutine stacks live in its heap.
	StackBytes   int64    `json:"stackBytes"`
	Capabilities []string `json:"capabilities"` // what its imports need in the container's securityContext
	OverBytes    int64    `json:"overBytes"`    // how far it exceeds the board's pod memory alone; 0 = fits
}

// Budget names.
const (
	BudgetPodMemory = "pod memory"
	BudgetAppImage  = "app image"
	BudgetSD        = "sd"
)

// Budget is one total of the build against one budget of the board.
type Budget struct {
	Name   string `json:"name"`        // BudgetPodMemory, BudgetAppImage or BudgetSD
	Used   int64  `json:"usedBytes"`   // app image: FirmwareBase included
	Budget int64  `json:"budgetBytes"` // 0 without a board
	// FirmwareBase is, for the app image, the part of Used that is the
	// board's estimate of the firmware itself.
	FirmwareBase int64 `json:"firmwareBaseBytes,omitempty"`
	OverBytes    int64 `json:"overBytes"` // 0 = fits
	// Node is, for the pod memory of an app whose Pods are pinned to two
	// nodes or more (nodes.go), the node (one board) this row counts, and
	// Pods what each of its Pods counts ("default/api 64.0 KiB"); the app
	// has a pod memory row per node then.
	Node string   `json:"node,omitempty"`
	Pods []string `json:"pods,omitempty"`
}

// FitError is the error of a build whose outputs do not fit its board. The
// build's outputs are written and its Result is complete.
type FitError struct {
	Board    string
	Problems []string
}

// Error lists the problems, one per line.
func (e *FitError) Error() string {
	return fmt.Sprintf("the build does not fit board %s:\n  %s", e.Board, strings.Join(e.Problems, "\n  "))
}

// fit measures the items against board (nil for none). pods are the Pods
// of the manifests: pinned to two nodes or more, each node's count against
// one board (nodes.go). A release build is never told to try --release.
func fit(items []Item, pods []placedPod, board *abi.Board, release bool) Fit {
	f := Fit{Pods: []PodFit{}, Problems: []string{}}
	var podMemory, firmware, sd int64
	var firmwarePods, sdPods []PodFit
	firmwareBundles := false
	initial := map[string]int64{} // image → initial memory
	for _, it := range items {
		if it.Kind == KindPod {
			p := PodFit{Name: it.Name, Language: it.Language, Storage: storageOf(it.Module), ModuleBytes: it.ModuleBytes,
				InitialMemory: it.InitialMemory, MaxMemory: it.MaxMemory, MemoryLimit: it.MemoryLimit, Counted: it.MemoryLimit,
				StackBytes: it.StackBytes, Capabilities: nonNilStrings(it.Capabilities)}
			if p.Counted == 0 {
				p.Counted = p.InitialMemory
			}
			initial[it.Image] = it.InitialMemory
			podMemory += p.Counted
			if p.Storage == string(images.Firmware) {
				firmware += p.ModuleBytes
				firmwarePods = append(firmwarePods, p)
			} else {
				sd += p.ModuleBytes
				sdPods = append(sdPods, p)
			}
			f.Pods = append(f.Pods, p)
		}
		if it.Bundle != "" {
			if storageOf(it.Bundle) == string(images.Firmware) {
				firmware += it.Stats.StoredBytes
				firmwareBundles = true
			} else {
				sd += it.Stats.StoredBytes
			}
		}
	}
	loads := spreadPods(pods, func(p placedPod) int64 {
		var n int64
		for i, image := range p.images {
			if p.limits[i] > 0 {
				n += p.limits[i]
			} else {
				n += initial[image]
			}
		}
		return n
	})
	var memory []Budget
	if loads == nil {
		memory = []Budget{{Name: BudgetPodMemory, Used: podMemory}}
	}
	for _, l := range loads {
		memory = append(memory, Budget{Name: BudgetPodMemory, Used: l.counted, Node: l.node, Pods: l.pods})
	}
	f.Budgets = append(memory, Budget{Name: BudgetAppImage, Used: firmware}, Budget{Name: BudgetSD, Used: sd})
	if board == nil {
		return f
	}
	f.Board = board.Name
	for i := range f.Pods {
		if problem := podProblem(&f.Pods[i], board, release); problem != "" {
			f.Problems = append(f.Problems, problem)
		}
	}
	for i := range f.Budgets {
		b := &f.Budgets[i]
		switch b.Name {
		case BudgetPodMemory:
			b.Budget = board.PodMemory
		case BudgetAppImage:
			b.Budget, b.FirmwareBase = board.AppImage, board.FirmwareBase
			b.Used += board.FirmwareBase
		case BudgetSD:
			b.Budget = board.SD
		}
		if b.Used > b.Budget {
			b.OverBytes = b.Used - b.Budget
		}
	}
	for _, b := range f.Budgets {
		if b.OverBytes == 0 {
			continue
		}
		// One pod alone over the pod memory is said above; a node or the
		// total holding it alone adds nothing then.
		switch {
		case b.Name == BudgetPodMemory && b.Node != "" && len(b.Pods) > 1:
			f.Problems = append(f.Problems, fmt.Sprintf(
				"pod memory on node %s: its pods count %s (%s; each its resources.limits.memory, else its image's initial memory), over %s's %s by %s: %s",
				b.Node, FormatSize(b.Used), strings.Join(b.Pods, ", "), board.Name, FormatSize(b.Budget), FormatSize(b.OverBytes),
				podMemoryHint(f.Pods, true)))
		case b.Name == BudgetPodMemory && b.Node == "" && len(f.Pods) > 1:
			f.Problems = append(f.Problems, fmt.Sprintf(
				"pod memory: the pods together count %s (%s; each its resources.limits.memory, else its initial memory), over %s's %s by %s: %s",
				FormatSize(b.Used), largestCounted(f.Pods), board.Name, FormatSize(b.Budget), FormatSize(b.OverBytes),
				podMemoryHint(f.Pods, false)))
		case b.Name == BudgetAppImage:
			f.Problems = append(f.Problems, fmt.Sprintf(
				"app image: build/firmware/ (%s) and the firmware itself (%s, an estimate) take %s, over %s's app partition of %s by %s: %s",
				FormatSize(b.Used-b.FirmwareBase), FormatSize(b.FirmwareBase), FormatSize(b.Used), board.Name, FormatSize(b.Budget), FormatSize(b.OverBytes),
				appImageHint(firmwarePods, firmwareBundles, release)))
		case b.Name == BudgetSD:
			f.Problems = append(f.Problems, fmt.Sprintf(
				"sd: build/sd/ takes %s, over the %s that %s's profile gives the card by %s: %s",
				FormatSize(b.Used), FormatSize(b.Budget), board.Name, FormatSize(b.OverBytes), sdHint(sdPods, release)))
		}
	}
	return f
}

// podMemoryHint says what would bring the pods' memory under a board's:
// smaller limits for the pods whose limit is above both their initial
// memory and one WebAssembly page (a limit cannot go below either), and
// spreading the pods over more boards.
func podMemoryHint(pods []PodFit, pinned bool) string {
	var smaller []string
	for _, p := range largestFirst(pods) {
		// A C or Rust module's initial memory follows its limit; Go's
		// runtime starts at its own size.
		if p.MemoryLimit > modcheck.PageSize && (p.Language != "go" || p.MemoryLimit > p.InitialMemory) {
			smaller = append(smaller, fmt.Sprintf("%s %s", p.Name, FormatSize(p.MemoryLimit)))
		}
	}
	var hints []string
	if len(smaller) > 0 {
		hints = append(hints, fmt.Sprintf("set smaller limits.memory (%s; one page, %s, is the least)",
			strings.Join(smaller, ", "), FormatSize(modcheck.PageSize)))
	}
	if pinned {
		hints = append(hints, "pin some of them to another node (nodeSelector kubernetes.io/hostname, docs/nodes.md)")
	} else {
		hints = append(hints, "run them on several boards: pin pods to nodes with nodeSelector kubernetes.io/hostname (docs/nodes.md), and the report counts each node against one board")
	}
	return strings.Join(hints, ", or ")
}

// sdHint says what would shrink build/sd/.
func sdHint(sdPods []PodFit, release bool) string {
	var hints []string
	if !release {
		hints = append(hints, "try --release")
	}
	for _, p := range sdPods {
		if p.Language == "go" {
			hints = append(hints, "write Go pods in C or Rust")
			break
		}
	}
	hints = append(hints, "choose a board whose profile gives the card more room")
	return strings.Join(hints, ", ")
}

// podProblem sets p.OverBytes and words the problem of a pod that does not
// fit the board's pod memory alone; "" when it fits.
func podProblem(p *PodFit, board *abi.Board, release bool) string {
	switch {
	case p.InitialMemory > board.PodMemory:
		p.OverBytes = p.InitialMemory - board.PodMemory
		hint := "shrink its static data, or try --release"
		if release {
			hint = "shrink its static data"
		}
		if p.Language == "go" {
			hint = "Go's runtime alone starts above 2.0 MiB: write the pod in C or Rust, try --release, or choose a board with PSRAM"
			if release {
				hint = "Go's runtime alone starts above 2.0 MiB: write the pod in C or Rust, or choose a board with PSRAM"
			}
		}
		return fmt.Sprintf("pod %s: initial memory %s exceeds %s's pod memory %s by %s: %s",
			p.Name, FormatSize(p.InitialMemory), board.Name, FormatSize(board.PodMemory), FormatSize(p.OverBytes), hint)
	case p.MemoryLimit > board.PodMemory:
		p.OverBytes = p.MemoryLimit - board.PodMemory
		return fmt.Sprintf("pod %s: resources.limits.memory %s exceeds %s's pod memory %s by %s: set a smaller limits.memory (the module starts at %s)",
			p.Name, FormatSize(p.MemoryLimit), board.Name, FormatSize(board.PodMemory), FormatSize(p.OverBytes), FormatSize(p.InitialMemory))
	}
	return ""
}

// appImageHint says what would shrink build/firmware/: the firmware pods
// that could move to the card, largest first, smaller modules, and smaller
// bundles when there are any.
func appImageHint(firmwarePods []PodFit, bundles, release bool) string {
	sort.SliceStable(firmwarePods, func(i, j int) bool { return firmwarePods[i].ModuleBytes > firmwarePods[j].ModuleBytes })
	var moves []string
	hasGo := false
	for _, p := range firmwarePods {
		moves = append(moves, fmt.Sprintf("pod %s (%s) as image: wasm://sd/%s", p.Name, FormatSize(p.ModuleBytes), p.Name))
		hasGo = hasGo || p.Language == "go"
	}
	var hints []string
	if len(moves) > 0 {
		hints = append(hints, "move images to the SD card ("+strings.Join(moves, ", ")+")")
	}
	if !release {
		hints = append(hints, "try --release")
	}
	if hasGo {
		hints = append(hints, "write Go pods in C or Rust")
	}
	if bundles {
		hints = append(hints, "shrink the bundles (gzipOnly: true stores only the .gz of each file)")
	}
	return strings.Join(hints, ", ")
}

// largestCounted names the pods by what they count, largest first.
func largestCounted(pods []PodFit) string {
	sorted := largestFirst(pods)
	names := make([]string, len(sorted))
	for i, p := range sorted {
		names[i] = fmt.Sprintf("%s %s", p.Name, FormatSize(p.Counted))
	}
	return strings.Join(names, ", ")
}

// largestFirst sorts a copy of pods by what they count, largest first.
func largestFirst(pods []PodFit) []PodFit {
	sorted := append([]PodFit(nil), pods...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Counted > sorted[j].Counted })
	return sorted
}

// storageOf is the storage of a path under build/.
func storageOf(p string) string {
	if strings.HasPrefix(p, string(images.Firmware)+"/") {
		return string(images.Firmware)
	}
	return string(images.SD)
}

// capabilities lists what the k32 imports of a module need, sorted.
func capabilities(imports []string) []string {
	var caps []string
	for _, imp := range imports {
		module, name, _ := strings.Cut(imp, ".")
		if module != abi.Module {
			continue
		}
		if f, ok := abi.Lookup(name); ok && f.Capability != abi.NoCapability && !slices.Contains(caps, string(f.Capability)) {
			caps = append(caps, string(f.Capability))
		}
	}
	sort.Strings(caps)
	return caps
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FormatSize writes a size as the size table and the fit report show it,
// one style for every figure: bytes below 1 KiB, else KiB or MiB with one
// decimal ("64.0 KiB", "2.4 MiB").
func FormatSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
