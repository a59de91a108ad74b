// Package cli is the kube32 command tree. Each verb lives in a file of its
// own with an options struct its flags fill and a run function; this
// package only parses flags and wires the parts together. Tests and
// benchmarks run the commands through Run, with the arguments a user
// types; one that needs the cluster a command started gets it from
// host.WithStartHooks.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/bundler"
	"github.com/kube32/kube32/cli/internal/iostreams"
	"github.com/kube32/kube32/internal/termtext"
)

// IOStreams are the streams a command reads and writes, and whether each is
// a terminal. Results go to Out, progress and warnings to ErrOut.
type IOStreams = iostreams.IOStreams

// systemStreams are the process's own streams.
func systemStreams() IOStreams { return iostreams.System() }

// Main runs the CLI with the process's arguments and returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], systemStreams())
}

// Run runs the CLI with args and returns the exit code. Errors are printed
// once, here.
func Run(ctx context.Context, args []string, io IOStreams) int {
	root := newRootCommand(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	// An error may quote text from outside (a registry's message, a
	// compiler's output): each of its lines is made safe by the rule of pod
	// logs, its newlines kept.
	fmt.Fprintf(io.ErrOut, "kube32: %s\n", termtext.Lines(err.Error()))
	return exitCode(err)
}

// newRootCommand builds the command tree.
func newRootCommand(io IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "kube32",
		Short: "Build, run and flash kube32 apps: WebAssembly pods for ESP32 clusters",
		Long: `kube32 builds apps for kube32 clusters of ESP32 boards, whose pods are
WebAssembly modules, and runs the full kube32 runtime locally.

  kube32 new hello          scaffold an app from a template
  kube32 add pod api        add a pod (or a bundle) with its manifests and test
  kube32 build              compile pods, check them, write the image trees
  kube32 serve              run the app locally (no app here: a built-in demo)
  kube32 test               run the app's tests/*.hurl against it in a local cluster
  kube32 deploy --kubeconfig FILE --registry REG
                            put the app on a Kubernetes cluster running kube32 nodes
  kube32 flash --sd PATH    copy the images to a mounted SD card`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	root.AddCommand(
		newNewCommand(io),
		newAddCommand(io),
		newBoardsCommand(io),
		newTemplatesCommand(io),
		newBuildCommand(io),
		newServeCommand(io),
		newTestCommand(io),
		newFlashCommand(io),
		newPushCommand(io),
		newDeployCommand(io),
		newNodeCommand(io),
		newInstallCommand(io),
		newIngressCommand(io),
		newUplinkCommand(io),
		newVersionCommand(io),
		newWitCommand(io),
	)
	// --version prints what `kube32 version` does.
	root.Version = readVersions().String()
	root.SetVersionTemplate("{{.Version}}")
	root.Flags().Bool("version", false, "print the versions of kube32, its pod ABI, Go and wazero")
	markRunErrors(root)
	return root
}

// argDir is the optional [DIR] argument of build, serve and flash: "" when
// it is left out.
func argDir(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return ""
}

// projectDir is the project folder of build, serve and flash: dir when the
// command was given one, else the nearest folder holding kube32.yaml from
// the current one up (see bundler.FindProject). When that is not the current
// folder, it says on notes which kube32.yaml it uses.
func projectDir(dir string, notes io.Writer) (string, error) {
	if dir != "" {
		return dir, nil
	}
	root, err := bundler.FindProject(".")
	if err != nil {
		return "", err
	}
	if here, err := filepath.Abs("."); err == nil && here != root {
		fmt.Fprintf(notes, "using %s\n", filepath.Join(root, bundler.ProjectFileName))
	}
	return root, nil
}

// usageError is a mistake in the command line (exit code 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }
