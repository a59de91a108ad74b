package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi/images"
)

// flashOptions are the options of `kube32 flash`.
type flashOptions struct {
	IO       IOStreams
	Dir      string // "" = found from the current folder up (projectDir)
	SD       string
	Firmware string
	DryRun   bool
	Release  releaseFlags // the build before the copy
}

func newFlashCommand(io IOStreams) *cobra.Command {
	opts := flashOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "flash (--sd PATH | --firmware PATH) [DIR]",
		Short: "Copy the built images to a mounted SD card or a firmware source tree",
		Long: `Build what is stale, as kube32 build does, then copy build/sd/kube32 to
PATH/kube32 (--sd), or build/firmware/images to PATH/images (--firmware).
The new tree is staged beside the target and switched in at once, so an
interrupted flash leaves the whole previous tree or the whole new one; the
next flash completes or removes what it left.
Brotli (.br) variants are left out: boards serve .gz only. --dry-run lists
what would change without writing to PATH (everything, when PATH does not
exist yet). Without DIR, the project is the
nearest folder holding a kube32.yaml, from the current one up.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = argDir(args)
			if (opts.SD == "") == (opts.Firmware == "") {
				return &usageError{errors.New("give exactly one of --sd PATH or --firmware PATH")}
			}
			if err := opts.Release.check(); err != nil {
				return err
			}
			return runFlash(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.SD, "sd", "", "mounted SD card to copy kube32/ to")
	cmd.Flags().StringVar(&opts.Firmware, "firmware", "", "firmware source tree to copy images/ to")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list what would change without writing")
	addReleaseFlags(cmd.Flags(), &opts.Release)
	return cmd
}

// runFlash brings the project's build up to date, as `kube32 build` does,
// so that what it copies is never older than the sources, then copies the
// built trees to the target and says what comes next.
func runFlash(ctx context.Context, opts flashOptions) error {
	dir, err := projectDir(opts.Dir, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	res, err := runBuild(ctx, opts.IO, dir, false, opts.Release.options())
	if err != nil {
		return fmt.Errorf("nothing flashed: %w", err)
	}
	if rebuilt := rebuiltItems(res); len(rebuilt) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "built first (stale since the last build): %s\n", strings.Join(rebuilt, ", "))
	}
	flashed, err := bundler.Flash(bundler.FlashOptions{
		Build: filepath.Clean(res.BuildDir), SD: opts.SD, Firmware: opts.Firmware,
		DryRun: opts.DryRun, Out: opts.IO.Out,
	})
	if err != nil {
		return err
	}
	printFlashNext(opts.IO.Out, opts, flashed, cardItems(res))
	return nil
}

// rebuiltItems names the pods and bundles a build did not find up to date,
// and the stale outputs it removed.
func rebuiltItems(res *bundler.BuildResult) []string {
	var names []string
	for _, it := range res.Items {
		if !it.UpToDate {
			names = append(names, it.Kind+" "+it.Name)
		}
	}
	for _, r := range res.Removed {
		names = append(names, "removed "+filepath.ToSlash(r))
	}
	return names
}

// cardItems names the pods whose module or assets go on the SD card.
func cardItems(res *bundler.BuildResult) []string {
	sd := string(images.SD) + "/"
	var names []string
	for _, it := range res.Items {
		if strings.HasPrefix(it.Module, sd) || strings.HasPrefix(it.Bundle, sd) {
			names = append(names, it.Kind+" "+it.Name)
		}
	}
	return names
}

// printFlashNext says what is left to do on the board side: the firmware
// embeds its images, so a firmware tree that changed must be built and
// flashed. Either way it says when the project has nothing for the card.
func printFlashNext(w io.Writer, opts flashOptions, flashed *bundler.FlashResult, card []string) {
	if opts.DryRun {
		return
	}
	if opts.Firmware != "" {
		switch {
		case flashed.Files() == 0:
			fmt.Fprintln(w, "nothing of this project goes in the firmware's images")
		case flashed.Changed():
			fmt.Fprintf(w, "next: %s holds the new images; build the firmware and flash it to the boards as usual (ESP-IDF: idf.py flash, which builds first)\n", opts.Firmware)
		default:
			fmt.Fprintf(w, "%s already held these images: nothing changed for the firmware\n", opts.Firmware)
		}
		if len(card) > 0 {
			fmt.Fprintf(w, "next: the SD card gets %s: kube32 flash --sd CARD\n", strings.Join(card, ", "))
		} else {
			fmt.Fprintln(w, "nothing of this project goes on the SD card: every image is in the firmware")
		}
		return
	}
	if len(card) == 0 {
		fmt.Fprintln(w, "nothing of this project goes on the SD card: every image is in the firmware (kube32 flash --firmware TREE)")
	}
}
