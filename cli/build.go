package cli

import (
	"github.com/spf13/cobra"

	"github.com/kube32/kube32/bundler/build"
)

// BuildOptions are the options of `kube32 build`.
type BuildOptions struct {
	IO      IOStreams
	Dir     string
	Verbose bool
}

func newBuildCommand(io IOStreams) *cobra.Command {
	opts := BuildOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "build [DIR]",
		Short: "Compile the pods, check them against the ABI and write the image trees",
		Long: `Compile each pod of kube32.yaml to WebAssembly (Go or C), check it against
k32_app_abi and its pods' memory limits, precompress the static bundles, and
write build/firmware/ and build/sd/ as the boards read them. Work that is up
to date is skipped.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			_, err := build.Build(cmd.Context(), opts.Dir, build.Options{Out: opts.IO.Out, Verbose: opts.Verbose})
			return err
		},
	}
	cmd.Flags().BoolVarP(&opts.Verbose, "verbose", "v", false, "show compiler commands")
	return cmd
}
