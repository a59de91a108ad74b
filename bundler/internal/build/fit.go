package build

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/internal/compile"
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
	MemoryLimit   int64  `json:"memoryLimitBytes"` // the smallest resources.limits.memory of the Pods running it; 0 = none
	// RunBy are the Pods of the manifests that run its image
	// ("default/api"), [] when none does.
	RunBy []string `json:"runBy"`
	// Counted is what those Pods' containers of its image request
	// together, as serve --board's scheduler counts them (nodes.go).
	Counted int64 `json:"countedMemoryBytes"`
	// StackBytes is the stack the module was linked with (modcheck.Report);
	// 0 for Go, whose goroutine stacks live in its heap.
	StackBytes   int64    `json:"stackBytes"`
	Capabilities []string `json:"capabilities"` // what its imports need in the container's securityContext
	OverBytes    int64    `json:"overBytes"`    // how far it exceeds the board's pod memory alone; 0 = fits

	customBytes int64 // Item.CustomBytes
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
	// The pod memory has a row per node (one board) of the app (nodes.go).
	// Node names it: "" for the one board of an app whose Pods are pinned
	// to no node. Pods are the Pods it holds with what each requests
	// ("default/api 64.0 KiB"); MaxPods how many Pods the board holds (0
	// without a board), OverPods how many it holds too many (0 = fits).
	Node     string   `json:"node,omitempty"`
	Pods     []string `json:"pods,omitempty"`
	MaxPods  int64    `json:"maxPods,omitempty"`
	OverPods int64    `json:"overPods,omitempty"`
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
// of the manifests, which the pod memory counts, placed on nodes as the
// scheduler of serve --board places them (nodes.go). A release build is
// never told to try --release.
func fit(items []Item, pods []placedPod, board *abi.Board, release bool) Fit {
	f := Fit{Pods: []PodFit{}, Problems: []string{}}
	var firmware, sd int64
	var firmwarePods, sdPods []PodFit
	var firmwareBundles bool
	var firmwareGzip, sdGzip int64 // the bundles' gzip bytes, where they have .gz files
	byImage := map[string]*Item{}
	var podImages []string // the image of each of f.Pods
	for i, it := range items {
		if it.Kind == KindPod {
			byImage[it.Image] = &items[i]
			podImages = append(podImages, it.Image)
			p := PodFit{Name: it.Name, Language: it.Language, Storage: storageOf(it.Module), ModuleBytes: it.ModuleBytes,
				InitialMemory: it.InitialMemory, MaxMemory: it.MaxMemory, MemoryLimit: it.MemoryLimit, RunBy: []string{},
				StackBytes: it.StackBytes, Capabilities: nonNilStrings(it.Capabilities), customBytes: it.CustomBytes}
			for _, pod := range pods {
				for _, c := range pod.containers {
					if c.image == it.Image {
						p.Counted += c.request
						if !slices.Contains(p.RunBy, pod.name) {
							p.RunBy = append(p.RunBy, pod.name)
						}
					}
				}
			}
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
			var gzip int64
			if it.Stats.Gzipped > 0 {
				gzip = it.Stats.GzipBytes
			}
			if storageOf(it.Bundle) == string(images.Firmware) {
				firmware += it.Stats.StoredBytes
				firmwareBundles = true
				firmwareGzip += gzip
			} else {
				sd += it.Stats.StoredBytes
				sdGzip += gzip
			}
		}
	}
	loads := placePods(pods, board)
	for _, l := range loads {
		f.Budgets = append(f.Budgets, Budget{Name: BudgetPodMemory, Used: l.requested(), Node: l.node, Pods: describePods(l.pods)})
	}
	f.Budgets = append(f.Budgets, Budget{Name: BudgetAppImage, Used: firmware}, Budget{Name: BudgetSD, Used: sd})
	if board == nil {
		return f
	}
	f.Board = board.Name
	overAlone := map[string]bool{} // images whose pod does not fit the board alone
	for i := range f.Pods {
		if problem := podProblem(&f.Pods[i], board); problem != "" {
			f.Problems = append(f.Problems, problem)
			overAlone[podImages[i]] = true
		}
	}
	for i := range f.Budgets {
		b := &f.Budgets[i]
		switch b.Name {
		case BudgetPodMemory:
			b.Budget, b.MaxPods = board.PodMemory, board.MaxPods()
			if n := int64(len(b.Pods)); n > b.MaxPods {
				b.OverPods = n - b.MaxPods
			}
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
	for i, b := range f.Budgets {
		if b.OverBytes == 0 && b.OverPods == 0 {
			continue
		}
		switch b.Name {
		case BudgetPodMemory: // the first rows, one per load
			if problem := loadProblem(b, loads[i], board, byImage, overAlone, len(loads) > 1); problem != "" {
				f.Problems = append(f.Problems, problem)
			}
		case BudgetAppImage:
			f.Problems = append(f.Problems, fmt.Sprintf(
				"app image: build/firmware/ (%s) and the firmware itself (%s, an estimate) take %s, over %s's app partition of %s by %s: %s",
				FormatSize(b.Used-b.FirmwareBase), FormatSize(b.FirmwareBase), FormatSize(b.Used), board.Name, FormatSize(b.Budget), FormatSize(b.OverBytes),
				appImageHint(firmwarePods, firmwareBundles, releaseMayHelp(release, b.OverBytes, firmwarePods, firmwareGzip))))
		case BudgetSD:
			f.Problems = append(f.Problems, fmt.Sprintf(
				"sd: build/sd/ takes %s, over the %s that %s's profile gives the card by %s: %s",
				FormatSize(b.Used), FormatSize(b.Budget), board.Name, FormatSize(b.OverBytes),
				sdHint(sdPods, releaseMayHelp(release, b.OverBytes, sdPods, sdGzip))))
		}
	}
	return f
}

// loadProblem words what is over on one node (one board), b its pod
// memory row: the memory its Pods request, how many Pods it holds, or
// both. A node whose one Pod runs images that do not fit the board alone
// adds nothing to what podProblem said of them.
func loadProblem(b Budget, l nodeLoad, board *abi.Board, images map[string]*Item, overAlone map[string]bool, pinned bool) string {
	if len(l.pods) == 1 && b.OverPods == 0 && !slices.ContainsFunc(l.pods[0].containers, func(c placedContainer) bool { return !overAlone[c.image] }) {
		return ""
	}
	where := "pod memory"
	if b.Node != "" {
		where += " on node " + b.Node
	}
	var over []string
	if b.OverBytes > 0 {
		over = append(over, fmt.Sprintf("over %s's %s by %s", board.Name, FormatSize(b.Budget), FormatSize(b.OverBytes)))
	}
	if b.OverPods > 0 {
		over = append(over, fmt.Sprintf("%s holds %s (one per %s page of its pod memory)",
			board.Name, podCount(b.MaxPods), FormatSize(modcheck.PageSize)))
	}
	verb := "request"
	if len(l.pods) == 1 {
		verb = "requests"
	}
	return fmt.Sprintf("%s: %s %s %s (%s; each container its resources.requests.memory, else its limits.memory, else the default memory limit, %s, as serve --board schedules them), %s: %s",
		where, podCount(int64(len(l.pods))), verb, FormatSize(b.Used), strings.Join(b.Pods, ", "), FormatSize(abi.DefaultMemoryLimit),
		strings.Join(over, ", and "), podMemoryHint(l.pods, images, pinned))
}

// podCount writes n Pods: "1 Pod", "3 Pods".
func podCount(n int64) string {
	if n == 1 {
		return "1 Pod"
	}
	return fmt.Sprintf("%d Pods", n)
}

// podMemoryHint says what would bring a node's Pods under a board's: a
// limit for the Pods that have none (they request the default memory
// limit), smaller limits for those whose request is above what their
// module needs (one WebAssembly page, or for a language whose runtime sets
// it, such as Go, the initial memory: a limit cannot go below either), and spreading the Pods over
// more boards.
func podMemoryHint(pods []placedPod, images map[string]*Item, pinned bool) string {
	var unlimited, smaller []string
	for _, p := range pods {
		shrinks := false
		for _, c := range p.containers {
			least := int64(modcheck.PageSize)
			if it := images[c.image]; it != nil && languageOf(it.Language).Fit.RuntimeMemory {
				least = max(least, it.InitialMemory)
			}
			switch {
			case c.defaulted:
				if !slices.Contains(unlimited, p.name) {
					unlimited = append(unlimited, p.name)
				}
			case c.request > least:
				shrinks = true
			}
		}
		if shrinks && !slices.Contains(unlimited, p.name) {
			smaller = append(smaller, fmt.Sprintf("%s %s", p.name, FormatSize(p.request())))
		}
	}
	var hints []string
	if len(unlimited) > 0 {
		hints = append(hints, fmt.Sprintf("set resources.limits.memory on %s (a container without one requests the default memory limit)",
			strings.Join(unlimited, ", ")))
	}
	if len(smaller) > 0 {
		hints = append(hints, fmt.Sprintf("set smaller limits.memory (%s; one page, %s, is the least)",
			strings.Join(smaller, ", "), FormatSize(modcheck.PageSize)))
	}
	switch {
	case len(pods) < 2:
	case pinned:
		hints = append(hints, "pin some of them to another node (nodeSelector kubernetes.io/hostname, docs/nodes.md)")
	default:
		hints = append(hints, "run them on several boards: pin Pods to nodes with nodeSelector kubernetes.io/hostname (docs/nodes.md), and the report counts each node against one board")
	}
	if len(hints) == 0 {
		return "choose a board with more pod memory"
	}
	return strings.Join(hints, ", or ")
}

// What a --release build could save, at most, of a plain build's outputs,
// so that "try --release" is advised only where it could plausibly make the
// build fit: every custom section of a module (its names, producers), and
// of the rest what wasm-opt -Oz takes off, at most the share its language
// gives (compile.FitAdvice.ReleaseShare); and at most releaseGzipShare
// percent of a bundle's .gz files (zopfli saves about 8 % on text over
// compress/gzip), nothing of files that do not compress.
const releaseGzipShare = 10

// releaseMayHelp reports whether a plain build over a budget by over could
// fit it built with --release: the modules of pods and the gzip bytes of
// bundles stored there could shrink by as much.
func releaseMayHelp(release bool, over int64, pods []PodFit, gzip int64) bool {
	if release {
		return false
	}
	saving := gzip * releaseGzipShare / 100
	for _, p := range pods {
		share := languageOf(p.Language).Fit.ReleaseShare
		saving += p.customBytes + (p.ModuleBytes-p.customBytes)*share/100
	}
	return over <= saving
}

// sdHint says what would shrink build/sd/.
func sdHint(sdPods []PodFit, tryRelease bool) string {
	var hints []string
	if tryRelease {
		hints = append(hints, "try --release")
	}
	hints = append(hints, smallerLanguages(sdPods)...)
	hints = append(hints, "choose a board whose profile gives the card more room")
	return strings.Join(hints, ", ")
}

// podProblem sets p.OverBytes and words the problem of a pod that does not
// fit the board's pod memory alone; "" when it fits. --release is no help
// here: it shrinks a module's code, never the initial memory its linker
// laid out.
func podProblem(p *PodFit, board *abi.Board) string {
	switch {
	case p.InitialMemory > board.PodMemory:
		p.OverBytes = p.InitialMemory - board.PodMemory
		hint := "shrink its static data"
		if fa := languageOf(p.Language).Fit; fa.InitialMemory != "" {
			hint = fa.InitialMemory + ": write the pod in " + compile.SmallLanguages() + ", or choose a board with PSRAM"
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
func appImageHint(firmwarePods []PodFit, bundles, tryRelease bool) string {
	sort.SliceStable(firmwarePods, func(i, j int) bool { return firmwarePods[i].ModuleBytes > firmwarePods[j].ModuleBytes })
	var moves []string
	for _, p := range firmwarePods {
		moves = append(moves, fmt.Sprintf("pod %s (%s) as image: wasm://sd/%s", p.Name, FormatSize(p.ModuleBytes), p.Name))
	}
	var hints []string
	if len(moves) > 0 {
		hints = append(hints, "move images to the SD card ("+strings.Join(moves, ", ")+")")
	}
	if tryRelease {
		hints = append(hints, "try --release")
	}
	hints = append(hints, smallerLanguages(firmwarePods)...)
	if bundles {
		hints = append(hints, "shrink the bundles (gzipOnly: true stores only the .gz of each file)")
	}
	return strings.Join(hints, ", ")
}

// smallerLanguages advises, for each Large language among pods', the
// languages that make small modules: "write Go pods in C, Rust or
// AssemblyScript".
func smallerLanguages(pods []PodFit) []string {
	var hints []string
	for _, l := range compile.Languages {
		if l.Fit.Large && slices.ContainsFunc(pods, func(p PodFit) bool { return p.Language == l.Name }) {
			hints = append(hints, "write "+l.Title+" pods in "+compile.SmallLanguages())
		}
	}
	return hints
}

// languageOf is the table's entry of a pod's language; a language the
// project check let through is always there.
func languageOf(name string) *compile.Language {
	if l, ok := compile.LookupLanguage(name); ok {
		return l
	}
	return &compile.Language{Name: name}
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
