package build

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/bundler/images"
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

// fit measures the items against board (nil for none).
func fit(items []Item, board *abi.Board) Fit {
	f := Fit{Pods: []PodFit{}, Problems: []string{}}
	var podMemory, firmware, sd int64
	var firmwarePods []PodFit
	firmwareBundles := false
	for _, it := range items {
		if it.Kind == KindPod {
			p := PodFit{Name: it.Name, Language: it.Language, Storage: storageOf(it.Module), ModuleBytes: it.ModuleBytes,
				InitialMemory: it.InitialMemory, MaxMemory: it.MaxMemory, MemoryLimit: it.MemoryLimit, Counted: it.MemoryLimit,
				StackBytes: it.StackBytes, Capabilities: nonNilStrings(it.Capabilities)}
			if p.Counted == 0 {
				p.Counted = p.InitialMemory
			}
			podMemory += p.Counted
			if p.Storage == string(images.Firmware) {
				firmware += p.ModuleBytes
				firmwarePods = append(firmwarePods, p)
			} else {
				sd += p.ModuleBytes
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
	f.Budgets = []Budget{{Name: BudgetPodMemory, Used: podMemory}, {Name: BudgetAppImage, Used: firmware}, {Name: BudgetSD, Used: sd}}
	if board == nil {
		return f
	}
	f.Board = board.Name
	for i := range f.Pods {
		if problem := podProblem(&f.Pods[i], board); problem != "" {
			f.Problems = append(f.Problems, problem)
		}
	}
	pm, app, card := &f.Budgets[0], &f.Budgets[1], &f.Budgets[2]
	pm.Budget, app.Budget, card.Budget = board.PodMemory, board.AppImage, board.SD
	app.FirmwareBase = board.FirmwareBase
	app.Used += board.FirmwareBase
	for i := range f.Budgets {
		b := &f.Budgets[i]
		if b.Used > b.Budget {
			b.OverBytes = b.Used - b.Budget
		}
	}
	// One pod alone over the pod memory is said above; the total adds
	// nothing then.
	if pm.OverBytes > 0 && len(f.Pods) > 1 {
		f.Problems = append(f.Problems, fmt.Sprintf(
			"pod memory: the pods together count %s (each its resources.limits.memory, else its initial memory), over %s's %s by %s: set smaller limits.memory (%s) or run fewer pods on one board",
			size(pm.Used), board.Name, size(pm.Budget), size(pm.OverBytes), largestCounted(f.Pods)))
	}
	if app.OverBytes > 0 {
		f.Problems = append(f.Problems, fmt.Sprintf(
			"app image: build/firmware/ (%s) and the firmware itself (%s, an estimate) take %s, over %s's app partition of %s by %s: %s",
			size(app.Used-app.FirmwareBase), size(app.FirmwareBase), size(app.Used), board.Name, size(app.Budget), size(app.OverBytes),
			appImageHint(firmwarePods, firmwareBundles)))
	}
	if card.OverBytes > 0 {
		f.Problems = append(f.Problems, fmt.Sprintf(
			"sd: build/sd/ takes %s, over the %s that %s's profile gives the card by %s: try --release, or write Go pods in C or Rust",
			size(card.Used), size(card.Budget), board.Name, size(card.OverBytes)))
	}
	return f
}

// podProblem sets p.OverBytes and words the problem of a pod that does not
// fit the board's pod memory alone; "" when it fits.
func podProblem(p *PodFit, board *abi.Board) string {
	switch {
	case p.InitialMemory > board.PodMemory:
		p.OverBytes = p.InitialMemory - board.PodMemory
		hint := "shrink its static data, or try --release"
		if p.Language == "go" {
			hint = "Go's runtime alone starts above 2 MiB: write the pod in C or Rust, try --release, or choose a board with PSRAM"
		}
		return fmt.Sprintf("pod %s: initial memory %s exceeds %s's pod memory %s by %s: %s",
			p.Name, size(p.InitialMemory), board.Name, size(board.PodMemory), size(p.OverBytes), hint)
	case p.MemoryLimit > board.PodMemory:
		p.OverBytes = p.MemoryLimit - board.PodMemory
		return fmt.Sprintf("pod %s: resources.limits.memory %s exceeds %s's pod memory %s by %s: set a smaller limits.memory (the module starts at %s)",
			p.Name, size(p.MemoryLimit), board.Name, size(board.PodMemory), size(p.OverBytes), size(p.InitialMemory))
	}
	return ""
}

// appImageHint says what would shrink build/firmware/: the firmware pods
// that could move to the card, largest first, smaller modules, and smaller
// bundles when there are any.
func appImageHint(firmwarePods []PodFit, bundles bool) string {
	sort.SliceStable(firmwarePods, func(i, j int) bool { return firmwarePods[i].ModuleBytes > firmwarePods[j].ModuleBytes })
	var moves []string
	hasGo := false
	for _, p := range firmwarePods {
		moves = append(moves, fmt.Sprintf("pod %s (%s) as image: wasm://sd/%s", p.Name, size(p.ModuleBytes), p.Name))
		hasGo = hasGo || p.Language == "go"
	}
	var hints []string
	if len(moves) > 0 {
		hints = append(hints, "move images to the SD card ("+strings.Join(moves, ", ")+")")
	}
	hints = append(hints, "try --release")
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
	sorted := append([]PodFit(nil), pods...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Counted > sorted[j].Counted })
	names := make([]string, len(sorted))
	for i, p := range sorted {
		names[i] = fmt.Sprintf("%s %s", p.Name, size(p.Counted))
	}
	return strings.Join(names, ", ")
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

// size writes n as a Kubernetes quantity where it is whole Ki, Mi or Gi,
// else in KiB or MiB with one decimal.
func size(n int64) string {
	switch {
	case n%(1<<10) == 0 || n < 1<<10:
		return modcheck.FormatBytes(n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
