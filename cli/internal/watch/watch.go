package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kube32/kube32/bundler"
	"github.com/kube32/kube32/host"

	"github.com/fsnotify/fsnotify"

	"github.com/kube32/kube32/host/apis/manifest"
)

// debounce is how long the files must stay quiet after a change before the
// rebuild: an editor's save is often several writes and renames.
const debounce = 50 * time.Millisecond

// fixedLine follows "watch: " once a failed build or manifest is fixed,
// before the swap's own line, if the fix changed what is served.
const fixedLine = "build ok again"

// readyWait bounds the wait for swapped pods to serve.
const readyWait = 2 * time.Minute

// Options configure Run.
type Options struct {
	Dir   string   // the project's directory
	Files []string // manifests given with -f, applied after the project's
	Board string   // the board to fit rebuilds to (serve --board); "" = kube32.yaml's
	// Log receives one line per swap, with its edit-to-serving time, and
	// each failure once (serve's standard error).
	Log io.Writer
	// Seen, when set, is called with each change the watcher sees and
	// whether it starts a rebuild (tests use it). build/ is not watched:
	// its changes are never seen.
	Seen func(path string, rebuild bool)
	// Settled, when set, is called after each burst of changes has been
	// handled: rebuilt and swapped in (and the cluster ready again), or
	// found to change nothing served, or failed (kube32 test --watch runs
	// the tests again then).
	Settled func()
}

// session is one Run's state.
type session struct {
	opts    Options
	dir     string        // the project's absolute directory
	cluster *host.Cluster // the running cluster (set by Run)
	watcher *fsnotify.Watcher
	// external are the manifests outside the project, whose folders are
	// watched for them alone.
	external map[string]bool
	served   outputs // the fingerprints of the outputs the cluster serves
	lastErr  string  // the failure reported last, not repeated until fixed
	// broken is set while the project's build or its manifests fail, so
	// that the fix is said even when it changes nothing served.
	broken bool
}

// Watcher watches one project for a running cluster.
type Watcher struct{ s *session }

// New starts watching the project: every change from now on is seen by
// Run. Serve calls it before its first build, so that an edit saved while
// that build runs or the cluster starts (even right after GET /readyz
// answers) is rebuilt and swapped in, never lost (docs/serve.md).
func New(opts Options) (*Watcher, error) {
	p, err := bundler.LoadProject(opts.Dir)
	if err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("--watch: %w", err)
	}
	s := &session{opts: opts, dir: p.Dir(), watcher: w, served: outputs{}}
	if err := s.watchFolders(p); err != nil {
		w.Close()
		return nil, fmt.Errorf("--watch: %w", err)
	}
	return &Watcher{s: s}, nil
}

// Close stops watching; Run closes too when it ends.
func (w *Watcher) Close() { w.s.watcher.Close() }

// Run rebuilds and swaps into c after each burst of changes until ctx
// ends, then stops watching. served is the build c started with, made
// after New: its outputs are what c serves, and the changes seen since New
// are rebuilt against them.
func (w *Watcher) Run(ctx context.Context, c *host.Cluster, served *bundler.BuildResult) {
	s := w.s
	defer s.watcher.Close()
	s.cluster = c
	if served != nil {
		s.served = fingerprint(served)
	}
	var quiet <-chan time.Time
	var timer *time.Timer
	var firstEdit time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-s.watcher.Events:
			if !ok {
				return
			}
			if !s.relevant(ev) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				_ = s.watchTree(ev.Name) // a new folder: watch it and what it holds
			}
			if firstEdit.IsZero() {
				firstEdit = time.Now()
			}
			if timer == nil {
				timer = time.NewTimer(debounce)
			} else {
				timer.Reset(debounce)
			}
			quiet = timer.C
		case err, ok := <-s.watcher.Errors:
			if !ok {
				return
			}
			s.report("watching: " + err.Error())
		case <-quiet:
			quiet = nil
			s.swap(ctx, firstEdit)
			firstEdit = time.Time{}
			if s.opts.Settled != nil && ctx.Err() == nil {
				s.opts.Settled()
			}
		}
	}
}

// relevant reports whether ev may change what is served.
func (s *session) relevant(ev fsnotify.Event) bool {
	path := filepath.Clean(ev.Name)
	rebuild := ev.Op != fsnotify.Chmod &&
		(s.external[path] || inside(s.dir, path) && !ignored(s.dir, path))
	if s.opts.Seen != nil {
		s.opts.Seen(path, rebuild)
	}
	return rebuild
}

// watchFolders watches the project's tree, build/ and version control
// left out, and the folders of the manifests outside it.
func (s *session) watchFolders(p *bundler.Project) error {
	if err := s.watchTree(s.dir); err != nil {
		return err
	}
	s.external = map[string]bool{}
	for _, f := range append(p.ManifestPaths(), s.opts.Files...) {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		if !inside(s.dir, abs) {
			s.external[abs] = true
			if err := s.watcher.Add(filepath.Dir(abs)); err != nil {
				return err
			}
		}
	}
	return nil
}

// watchTree watches root and every folder below it that may hold sources.
func (s *session) watchTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile, or unreadable: nothing to watch
		}
		if !d.IsDir() {
			return nil
		}
		if p != s.dir && ignored(s.dir, p) {
			return filepath.SkipDir
		}
		return s.watcher.Add(p)
	})
}

// swap rebuilds what is stale and brings the cluster onto it: the pods and
// bundles whose outputs changed, then the manifests. A build that fails
// leaves the failed outputs as they were, so their last good version keeps
// serving.
func (s *session) swap(ctx context.Context, firstEdit time.Time) {
	var swapped []string
	ok := true
	res, buildErr := bundler.Build(ctx, s.dir, bundler.BuildOptions{Board: s.opts.Board})
	if buildErr != nil {
		ok = false
		s.report("build failed; the last good version keeps serving:\n" + strings.TrimRight(buildErr.Error(), "\n"))
	}
	if res != nil {
		swapped = s.swapOutputs(res)
	}
	if p, err := bundler.LoadProject(s.dir); err == nil {
		if err := s.watchFolders(p); err != nil {
			s.report("watching: " + err.Error())
		}
		applied, err := s.apply(p)
		var inProject *projectManifestError
		if err != nil {
			ok = false
			// The build reads the project's manifests before anything
			// else and stops at their first error: a failed build has
			// printed it already, so it is printed once.
			if buildErr == nil || !errors.As(err, &inProject) {
				s.report(err.Error())
			}
		} else if applied.Changed() {
			swapped = append(swapped, applied.String())
		}
	}
	if ok {
		s.lastErr = ""
		if s.broken {
			fmt.Fprintf(s.opts.Log, "watch: %s\n", fixedLine)
		}
	}
	s.broken = !ok
	if len(swapped) == 0 {
		return
	}
	readyCtx, cancel := context.WithTimeout(ctx, readyWait)
	defer cancel()
	if err := s.cluster.WaitReady(readyCtx); err != nil {
		if ctx.Err() == nil {
			s.report(err.Error())
		}
		return
	}
	fmt.Fprintf(s.opts.Log, "watch: %s: serving %s after the edit\n", strings.Join(swapped, "; "), time.Since(firstEdit).Round(time.Millisecond))
}

// swapOutputs hands the cluster the pods and bundles whose outputs differ
// from those it serves, and says which.
func (s *session) swapOutputs(res *bundler.BuildResult) []string {
	now := fingerprint(res)
	var images, bundles, swapped []string
	for _, it := range res.Items {
		key := itemKey(it)
		if now[key] == s.served[key] {
			continue
		}
		s.served[key] = now[key]
		if it.Kind == bundler.KindPod {
			images = append(images, it.Image)
			swapped = append(swapped, "pod "+it.Name+" rebuilt")
		} else {
			bundles = append(bundles, it.Name)
			swapped = append(swapped, "bundle "+it.Name+" rebuilt")
		}
	}
	if len(images) > 0 {
		s.cluster.ImagesChanged(images)
	}
	if len(bundles) > 0 {
		if err := s.cluster.BundlesChanged(bundles); err != nil {
			s.report(err.Error())
		}
	}
	return swapped
}

// apply applies the project's manifests and those of -f again.
func (s *session) apply(p *bundler.Project) (host.Applied, error) {
	objs, err := manifest.DecodeFiles(p.ManifestPaths())
	if err != nil {
		return host.Applied{}, &projectManifestError{err}
	}
	extra, err := manifest.DecodeFiles(s.opts.Files)
	if err != nil {
		return host.Applied{}, err
	}
	return s.cluster.Apply(append(objs, extra...))
}

// projectManifestError is an error of a manifest kube32.yaml lists, which
// the build reports too; those of -f only apply reads.
type projectManifestError struct{ err error }

func (e *projectManifestError) Error() string { return e.err.Error() }
func (e *projectManifestError) Unwrap() error { return e.err }

// report prints a failure, unless it is the one printed last.
func (s *session) report(msg string) {
	if msg == s.lastErr {
		return
	}
	s.lastErr = msg
	fmt.Fprintf(s.opts.Log, "watch: %s\n", msg)
}

// inside reports whether path is dir or below it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(os.PathSeparator))
}
