package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/templates"
)

func newTemplatesCommand(io IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "templates",
		Short: "List the templates of `kube32 new`",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "TEMPLATE\tDESCRIPTION")
			for _, t := range templates.All {
				fmt.Fprintf(w, "%s\t%s\n", t.Name, t.Description)
			}
			return w.Flush()
		},
	}
}
