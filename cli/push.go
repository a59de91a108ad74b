package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/internal/inputfile"
	"github.com/kube32/kube32/internal/oci"
)

// pushOptions are the options of `kube32 push`.
type pushOptions struct {
	IO        IOStreams
	Module    string // the .wasm file, or a built bundle's folder
	Ref       string // REGISTRY/REPOSITORY:TAG
	PlainHTTP bool   // plain HTTP to a registry that is not on loopback
}

func newPushCommand(io IOStreams) *cobra.Command {
	opts := pushOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "push MODULE|BUNDLE REF",
		Short: "Push a wasm module or a static bundle to an OCI registry, for nodes to pull",
		Long: `Write MODULE (a .wasm file) to the OCI registry reference REF, such as
127.0.0.1:5000/app/echo:v1, as a wasm artifact: an image manifest with the
config application/vnd.wasm.config.v0+json and one layer application/wasm.
A Pod whose image is REF then runs on kube32 nodes, which pull it once and
keep it by digest (docs/oci.md). The module is checked first, as a node
checks it. Registries on this machine (localhost, 127.0.0.0/8) are reached
over plain HTTP, others over HTTPS unless --plain-http; credentials come
from the Docker configuration (docker login). Prints the manifest's digest.

BUNDLE is a built StaticBundle's folder, build/firmware/images/web/NAME
after kube32 build: it is pushed as a bundle artifact (artifactType
application/vnd.kube32.bundle.v1, one tar layer of its files), which a
StaticBundle whose spec.image is REF serves (docs/oci.md, "Bundles").
The same files always push to the same digest.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Module, opts.Ref = args[0], args[1]
			return runPush(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.PlainHTTP, "plain-http", false, "reach a registry that is not on this machine over plain HTTP")
	return cmd
}

// runPush checks the module, pushes it and prints REF@DIGEST.
func runPush(ctx context.Context, opts pushOptions) error {
	info, err := os.Stat(opts.Module)
	if err != nil {
		return fmt.Errorf("nothing pushed: %w", err)
	}
	if info.IsDir() {
		return pushBundle(ctx, opts)
	}
	// A regular file only, read no further than nodes pull: /dev/zero
	// (whose size reads 0) and a FIFO are refused at once.
	module, err := inputfile.Read(ctx, opts.Module, abi.OCIModuleBytesMax, "abi.OCIModuleBytesMax, the most nodes pull")
	if err != nil {
		return fmt.Errorf("nothing pushed: %w", err)
	}
	if _, err := modcheck.Check(ctx, module, modcheck.Options{}); err != nil {
		return fmt.Errorf("nothing pushed: %s: %w", opts.Module, err)
	}
	digest, err := oci.Push(ctx, module, opts.Ref, opts.PlainHTTP)
	if err != nil {
		return fmt.Errorf("nothing pushed: %s: %w", opts.Module, err)
	}
	fmt.Fprintf(opts.IO.Out, "pushed %s to %s@%s\n", opts.Module, opts.Ref, digest)
	return nil
}

// pushBundle pushes the built bundle in the folder opts.Module.
func pushBundle(ctx context.Context, opts pushOptions) error {
	digest, err := oci.PushBundle(ctx, opts.Module, opts.Ref, opts.PlainHTTP)
	if err != nil {
		return fmt.Errorf("nothing pushed: bundle %s: %w", opts.Module, err)
	}
	fmt.Fprintf(opts.IO.Out, "pushed bundle %s to %s@%s\n", opts.Module, opts.Ref, digest)
	return nil
}
