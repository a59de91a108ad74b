package cli

import (
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/bundler/flash"
	"github.com/kube32/kube32/bundler/project"
)

// FlashOptions are the options of `kube32 flash`.
type FlashOptions struct {
	IO       IOStreams
	Dir      string
	SD       string
	Firmware string
	DryRun   bool
}

func newFlashCommand(io IOStreams) *cobra.Command {
	opts := FlashOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "flash (--sd PATH | --firmware PATH) [DIR]",
		Short: "Copy the built images to a mounted SD card or a firmware source tree",
		Long: `Copy build/sd/kube32 to PATH/kube32 (--sd), or build/firmware/images to
PATH/images (--firmware). Each file is written atomically, so an interrupted
flash leaves the previous files intact; the temporary files it left are
removed by the next flash. Brotli (.br) variants are left out: boards serve
.gz only. --dry-run lists what would change.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = projectDir(args)
			if (opts.SD == "") == (opts.Firmware == "") {
				return &usageError{errors.New("give exactly one of --sd PATH or --firmware PATH")}
			}
			return runFlash(opts)
		},
	}
	cmd.Flags().StringVar(&opts.SD, "sd", "", "mounted SD card to copy kube32/ to")
	cmd.Flags().StringVar(&opts.Firmware, "firmware", "", "firmware source tree to copy images/ to")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list what would change without writing")
	return cmd
}

// runFlash copies the project's built trees to the target.
func runFlash(opts FlashOptions) error {
	p, err := project.Load(opts.Dir)
	if err != nil {
		return err
	}
	_, err = flash.Flash(flash.Options{
		Build: filepath.Clean(p.BuildDir()), SD: opts.SD, Firmware: opts.Firmware,
		DryRun: opts.DryRun, Out: opts.IO.Out,
	})
	return err
}
