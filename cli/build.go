package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kube32/kube32/bundler"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// buildOptions are the options of `kube32 build`.
type buildOptions struct {
	IO      IOStreams
	Dir     string // "" = found from the current folder up (projectDir)
	Verbose bool
	Output  outputFormat // the size table (text) or the result as JSON
	Board   string       // a profile of abi.Boards; "" = kube32.yaml's board:
	Release releaseFlags
}

// releaseFlags are --release and --keep-names, of build and flash.
type releaseFlags struct{ release, keepNames bool }

func addReleaseFlags(f *pflag.FlagSet, r *releaseFlags) {
	f.BoolVar(&r.release, "release", false, "shrink what the boards get: wasm-opt -Oz, no custom sections, the Go linker's size flags, the smallest .gz")
	f.BoolVar(&r.keepNames, "keep-names", false, "with --release, keep the modules' name section (function names in traps)")
}

// check refuses --keep-names alone: it would quietly do nothing.
func (r releaseFlags) check() error {
	if r.keepNames && !r.release {
		return &usageError{errors.New("--keep-names needs --release (debug builds keep what the compilers write)")}
	}
	return nil
}

// options are the flags as build options.
func (r releaseFlags) options() bundler.BuildOptions {
	return bundler.BuildOptions{Release: r.release, KeepNames: r.keepNames}
}

func newBuildCommand(io IOStreams) *cobra.Command {
	opts := buildOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Compile the pods, check them against the ABI and write the image trees",
		Long: `Compile each pod of kube32.yaml to WebAssembly (Go or C), check it against
k32_app_abi and its pods' memory limits, precompress the static bundles, and
write build/firmware/ and build/sd/ as the boards read them. Work that is up
to date is skipped. Without DIR, the project is the nearest folder holding a
kube32.yaml, from the current one up.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = argDir(args)
			if err := opts.Release.check(); err != nil {
				return err
			}
			return buildCommand(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "show compiler commands")
	addOutputFlag(cmd.Flags(), &opts.Output)
	addBoardFlag(cmd.Flags(), &opts.Board)
	addReleaseFlags(cmd.Flags(), &opts.Release)
	return cmd
}

// buildCommand builds the project and prints the size table, or the JSON of
// the result, on standard output; progress (on a terminal only), warnings
// and removed outputs go to standard error.
func buildCommand(ctx context.Context, opts buildOptions) error {
	dir, err := projectDir(opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	bopts := opts.Release.options()
	bopts.Board = opts.Board
	res, err := runBuild(ctx, opts.IO, dir, opts.Verbose, bopts)
	// A build that does not fit its board is complete: its table is printed.
	var misfit *bundler.FitError
	if err != nil && !errors.As(err, &misfit) {
		return err
	}
	if opts.Output == outputJSON {
		if jerr := printBuildJSON(opts.IO.Out, res); jerr != nil {
			return jerr
		}
		return err
	}
	printBuildTable(opts.IO.Out, res, opts.IO.IsStdoutTTY())
	if len(res.Items) > 0 {
		printBuildFit(opts.IO.Out, res.Fit, opts.IO.IsStdoutTTY())
	}
	return err
}

// runBuild builds the project in dir and prints what is not its result:
// progress with elapsed times when standard error is a terminal, the
// compiler commands when verbose, then the warnings (the compilers' too),
// even of a failed build, and the stale outputs it removed. opts says how
// to build (board, release); runBuild sets its Progress and CompilerLog.
func runBuild(ctx context.Context, ios IOStreams, dir string, verbose bool, opts bundler.BuildOptions) (*bundler.BuildResult, error) {
	var prog *progress
	if ios.IsStderrTTY() {
		prog = &progress{w: ios.ErrOut, inPlace: !verbose}
		opts.Progress = prog.step
	}
	if verbose {
		opts.CompilerLog = ios.ErrOut
	}
	res, err := bundler.Build(ctx, dir, opts)
	if prog != nil {
		prog.end()
	}
	if res != nil {
		printBuildNotes(ios.ErrOut, res)
	}
	return res, err
}

// printBuildNotes prints a build's warnings, the compilers' warnings and
// the stale outputs it removed.
func printBuildNotes(w io.Writer, res *bundler.BuildResult) {
	for _, it := range res.Items {
		if it.CompilerWarnings != "" {
			fmt.Fprintf(w, "pod %s: compiler warnings:\n%s\n", it.Name, it.CompilerWarnings)
		}
	}
	for _, warning := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	for _, r := range res.Removed {
		fmt.Fprintf(w, "removed stale %s\n", filepath.ToSlash(filepath.Join(bundler.BuildDirName, r)))
	}
}
