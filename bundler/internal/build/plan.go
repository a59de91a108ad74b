package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/bundler/internal/precompress"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/compile"
)

// Task kinds: a pod's module, a pod's asset bundle, a StaticBundle.
const (
	taskModule = iota
	taskAssets
	taskBundle
)

// task is one output of the build and what it is made from.
type task struct {
	kind  int
	item  int    // index of the Result item it fills
	out   string // output under build/, slash-separated
	src   string // assets and bundles: the absolute source directory
	limit int64  // modules: the pod's memory limit
	job   compile.Job

	gzipOnly bool
	brotli   bool
	bestGzip bool
	inputs   string // hash of the inputs
	old      *stamp // the stamp of the last build, nil when none
	fresh    bool   // the output is up to date
}

// moduleStampVersion changes when a module's stamp gains figures, so that
// modules stamped without them are rebuilt once.
const moduleStampVersion = "kube32-module-stamp/2" // 2: max memory, stack, capabilities

// bundleVersion changes when the way bundles are copied or compressed
// changes in a way the inputs do not show.
const bundleVersion = "kube32-bundle/2"

// plan lists the outputs of p, the Result items they fill, and which of them
// are up to date.
func plan(ctx context.Context, p *project.Project, objs []manifest.Object, opts Options, board *abi.Board) ([]*task, []Item, error) {
	limits := manifest.MemoryLimits(objs)
	buildDir := p.BuildDir()
	var tasks []*task
	var items []Item
	for i, pod := range p.Pods {
		img := pod.Parsed
		limit := limits[pod.Image].Bytes
		it := Item{Kind: KindPod, Name: pod.Name, Image: pod.Image, MemoryLimit: limit, Language: pod.Language,
			Module: images.InRoot(img.Storage, img.ModulePath())}
		job := moduleJob(p, pod, limit, opts, board)
		fp, err := compile.Fingerprint(ctx, job)
		if err != nil {
			return nil, nil, err
		}
		tasks = append(tasks, &task{kind: taskModule, item: len(items), out: it.Module, limit: limit, job: job,
			inputs: hashStrings(fp, fmt.Sprint("limit=", limit), "sdk="+compile.SDKVersion(), moduleStampVersion)})
		if pod.Assets != "" {
			it.Bundle = images.InRoot(img.Storage, img.BundlePath())
			// Pod assets get no .br: k32_resp_asset serves .gz only.
			t, err := bundleTask(p, taskAssets, len(items), it.Bundle, p.Path(pod.Assets), precompress.Options{BestGzip: opts.Release})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: pods[%d].assets: %w", project.FileName, i, err)
			}
			tasks = append(tasks, t)
		}
		items = append(items, it)
	}
	for i, b := range p.Bundles {
		it := Item{Kind: KindBundle, Name: b.Name, Bundle: images.InRoot(images.Firmware, images.BundleDir(b.Name)), Brotli: b.Brotli}
		popts := precompress.Options{GzipOnly: b.GzipOnly, Brotli: b.Brotli, BestGzip: opts.Release}
		t, err := bundleTask(p, taskBundle, len(items), it.Bundle, p.Path(b.Dir), popts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: bundles[%d].dir: %w", project.FileName, i, err)
		}
		tasks = append(tasks, t)
		items = append(items, it)
	}
	for _, t := range tasks {
		t.old = readStamp(stampPath(p.CacheDir(), t.out))
		abs := filepath.Join(buildDir, filepath.FromSlash(t.out))
		if t.old != nil && t.old.Inputs == t.inputs {
			if t.kind == taskModule {
				t.fresh = t.old.matchesModule(abs)
			} else {
				t.fresh = t.old.matchesDir(abs)
			}
		}
	}
	return tasks, items, nil
}

// moduleJob is how the build compiles pod, whose memory limit is limit.
func moduleJob(p *project.Project, pod project.Pod, limit int64, opts Options, board *abi.Board) compile.Job {
	job := compile.Job{
		Name: pod.Name, Language: pod.Language, SourceDir: p.Path(pod.Source), RootDir: p.Dir,
		CFlags: pod.CFlags, MemoryLimit: limit, CacheDir: p.CacheDir(), GoSDKDir: p.GoSDKDir(), GoWITDir: p.GoWITDir(), ToolDir: p.ToolDir(), Exclude: []string{p.BuildDir()},
	}
	if opts.Release {
		job.Release, job.KeepNames, job.Features = true, opts.KeepNames, releaseFeatures(board)
	}
	return job
}

// bundleTask plans the bundle of src; its inputs are the files that
// buildBundle copies, read the same way (see bundleSource).
func bundleTask(p *project.Project, kind, item int, out, src string, opts precompress.Options) (*task, error) {
	files, err := openSource(p.Dir, src, p.BuildDir())
	if err != nil {
		return nil, err
	}
	defer files.Close()
	h := sha256.New()
	// brotli is written only when on, so that bundles built before it
	// existed stay up to date.
	fmt.Fprintf(h, "%s gzipOnly=%v", bundleVersion, opts.GzipOnly)
	if opts.Brotli {
		fmt.Fprint(h, " brotli=true")
	}
	if opts.BestGzip {
		fmt.Fprintf(h, " bestGzip=%q", precompress.GzipFingerprint())
	}
	fmt.Fprintln(h)
	for _, name := range files.files {
		data, err := files.read(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%q %d\n", name, len(data))
		h.Write(data)
	}
	return &task{kind: kind, item: item, out: out, src: src,
		gzipOnly: opts.GzipOnly, brotli: opts.Brotli, bestGzip: opts.BestGzip, inputs: hex.EncodeToString(h.Sum(nil))}, nil
}

// releaseFeatures are the WebAssembly features a release module may use:
// those of the board built for, else those every board runs.
func releaseFeatures(board *abi.Board) []abi.WasmFeature {
	if board != nil {
		return board.Features
	}
	return abi.CommonFeatures()
}

// missingToolWarnings name the packages that would make a release build's
// outputs smaller: one warning per missing tool, for the outputs it would
// shrink.
func missingToolWarnings(opts Options, tasks []*task) []string {
	if !opts.Release {
		return nil
	}
	var modules, bundles bool
	for _, t := range tasks {
		modules = modules || t.kind == taskModule
		bundles = bundles || t.kind != taskModule
	}
	var w []string
	if modules && compile.Optimizer() == "" {
		w = append(w, compile.MissingWasmOpt)
	}
	if bundles && !precompress.HaveGzipTool() {
		w = append(w, precompress.MissingGzipTool)
	}
	return w
}

func hashStrings(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		fmt.Fprintf(h, "%q\n", s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// skeleton lists the directories every build has, even when empty, so that
// serve and flash find the trees of docs/abi.md ("Images").
var skeleton = []string{
	path.Join(string(images.Firmware), images.FirmwareWasmDir),
	path.Join(string(images.Firmware), images.FirmwareWebDir),
	path.Join(string(images.SD), images.SDImagesDir),
}
