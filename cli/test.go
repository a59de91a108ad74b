package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/bundler"
	"github.com/kube32/kube32/cli/internal/apptest"
	"github.com/kube32/kube32/host"
)

// testOptions are the options of `kube32 test`.
type testOptions struct {
	// Serve is the cluster's, as serve takes them: Dir, Images, Files,
	// Nodes, Board, Watch; its ports default to free ones.
	Serve serveOptions
	JUnit string // a file to write the results to as JUnit XML; "" = none
	// Wait bounds how long sse, pod and event asserts wait for their event
	// or state; 0 = apptest.DefaultWait.
	Wait time.Duration
	// Target, when its URL is set, is a running app to test instead of a
	// local cluster (deploytarget.go).
	Target testTarget
}

func newTestCommand(io IOStreams) *cobra.Command {
	opts := testOptions{Serve: serveOptions{IO: io}}
	cmd := &cobra.Command{
		Use:   "test [DIR]",
		Short: "Run the app's tests/*.hurl against the app in a local cluster",
		Long: `Build the project (DIR, or else the nearest folder holding a kube32.yaml from
the current one up), start its cluster in-process as serve does, on free
ports, and run the requests and asserts of its tests/*.hurl files, written
in a subset of Hurl's format (docs/testing.md).

With --kubeconfig FILE --ingress URL it tests an app that kube32 deploy put
on a Kubernetes cluster instead: the requests go to URL and the pod and
event asserts read the cluster. --url URL sends the requests to any
address (a serve, a board), with no cluster to read.

Prints one line per request (PASS, FAIL or SKIP), then a summary, and exits
1 when a test failed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Serve.Dir = argDir(args)
			if err := checkTarget(cmd.Flags(), &opts.Target); err != nil {
				return err
			}
			return runTest(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	s := &opts.Serve
	addClusterFlags(f, s)
	f.StringVar(&s.Images, "images", "", "test prebuilt images from this folder (holding firmware/ and sd/) instead of building")
	f.BoolVarP(&s.Watch, "watch", "w", false, "rebuild on every edit of the project, swap it in and run the tests again")
	f.StringVar(&opts.JUnit, "junit", "", "write the results to this file as JUnit XML, for CI")
	f.DurationVar(&opts.Wait, "wait", apptest.DefaultWait, "how long an sse, pod or event assert waits for its event or state")
	portFlag(f, &s.IngressPort, "ingress-port", 0, "port of the Ingress controller (default a free one)")
	addBoardFlag(f, &s.Board)
	addBoardTimeFlags(f, &s.BoardClock, &s.SlowCallback)
	addTargetFlags(f, &opts.Target)
	return cmd
}

// runTest runs the project's tests once, or with Watch after every edit
// until ctx ends.
func runTest(ctx context.Context, opts testOptions) error {
	so := opts.Serve
	dir, err := projectDir(so.Dir, so.IO.ErrOut)
	if errors.Is(err, bundler.ErrNoProject) {
		return fmt.Errorf("no kube32.yaml in this folder or any parent: kube32 test runs a project's %s/*.hurl (docs/testing.md)", apptest.Dir)
	} else if err != nil {
		return err
	}
	files, err := loadTests(dir)
	if err != nil {
		return err
	}
	if opts.Target.URL != "" {
		return runTargetTests(ctx, opts, files)
	}
	so.Dir = dir
	so.Kubeconfig = "" // a test run takes no kubeconfig context
	var c *host.Cluster
	if so.Watch {
		so.settled = func() {
			// An edit of a test file changes nothing served: read the
			// files again each time.
			files, err := loadTests(dir)
			if err != nil {
				fmt.Fprintf(so.IO.ErrOut, "kube32: %v\n", err)
				return
			}
			_ = runTestFiles(ctx, opts, c.IngressURL(), apptest.StoreState(c), files)
		}
	}
	c, src, stop, err := startCluster(ctx, so)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(so.IO.ErrOut, "Testing %s (ingress %s)\n", src.what, c.IngressURL())
	readyCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = c.WaitReady(readyCtx)
	cancel()
	if err != nil {
		return err
	}
	printPods(IOStreams{Out: so.IO.ErrOut}, c)
	failed := runTestFiles(ctx, opts, c.IngressURL(), apptest.StoreState(c), files)
	if src.watcher == nil {
		return failed
	}
	done := make(chan struct{})
	go func() { defer close(done); src.watcher.Run(ctx, c, src.built) }()
	fmt.Fprintf(so.IO.ErrOut, "Watching %s: each edit is rebuilt, swapped in and tested again. Press Ctrl-C to stop.\n", src.project)
	<-done
	return nil
}

// loadTests parses the project's test files; a project without any is an
// error, not a pass.
func loadTests(dir string) ([]*apptest.File, error) {
	files, err := apptest.Load(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no test files: write %s/*.hurl (docs/testing.md)", dir, apptest.Dir)
	}
	return files, nil
}

// runTestFiles runs files against the Ingress at ingress, whose cluster state
// reads, prints a line per entry and a summary, writes the JUnit file, and
// returns an error when a test failed.
func runTestFiles(ctx context.Context, opts testOptions, ingress string, state apptest.State, files []*apptest.File) error {
	out := opts.Serve.IO.Out
	start := time.Now()
	env := apptest.Env{Ingress: ingress, State: state, Wait: opts.Wait,
		Done: func(r apptest.Result) { apptest.WriteResult(out, r) }}
	var results []apptest.Result
	for _, f := range files {
		results = append(results, apptest.RunFile(ctx, env, f)...)
	}
	count := apptest.Tally(results)
	noun := "files"
	if len(files) == 1 {
		noun = "file"
	}
	fmt.Fprintf(out, "%s (%d %s, %s)\n", count, len(files), noun, time.Since(start).Round(time.Millisecond))
	if opts.JUnit != "" {
		if err := writeJUnit(opts.JUnit, results); err != nil {
			return err
		}
	}
	if count.Failed > 0 {
		return fmt.Errorf("%d of %d tests failed", count.Failed, len(results))
	}
	return nil
}

func writeJUnit(path string, results []apptest.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := apptest.WriteJUnit(f, results); err != nil {
		f.Close()
		return fmt.Errorf("--junit %s: %w", path, err)
	}
	return f.Close()
}
