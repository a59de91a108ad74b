package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi"
)

// witFile is the name `kube32 wit --out DIR` writes the WIT package under:
// DIR is then a WIT directory that wit-bindgen (`wit-bindgen rust --world
// pod DIR`) and wit-bindgen-go (`wit-bindgen-go generate --world pod DIR`)
// read (docs/components.md).
const witFile = "k32.wit"

func newWitCommand(io IOStreams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "wit",
		Short: "Print the WIT package of the ABI (world pod), for binding generators",
		Long: "Print the WIT package kube32:app@" + abi.Version + " that pods are written against: interface k32 (the host functions)\n" +
			"and world pod (what a pod imports and exports). With --out DIR, write it as DIR/" + witFile + ",\n" +
			"a WIT directory for wit-bindgen and wit-bindgen-go (docs/components.md).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				_, err := io.Out.Write(abi.WIT)
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			path := filepath.Join(out, witFile)
			if err := os.WriteFile(path, abi.WIT, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "Wrote %s (kube32:app@%s, world pod)\n", path, abi.Version)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write DIR/"+witFile+" instead of printing")
	return cmd
}
