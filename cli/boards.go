package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
)

func newBoardsCommand(io IOStreams) *cobra.Command {
	var format outputFormat
	cmd := &cobra.Command{
		Use:   "boards",
		Short: "List the board profiles that kube32.yaml's board: and --board name",
		Long: `List the board profiles: each board's memory, the memory its pods may
take together, its app image and SD budgets, its stacks, the WebAssembly
features its interpreter runs beyond the MVP and its core's clock (-o json
adds the whole cost model of time on the board). docs/boards.md explains
them.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if format == outputJSON {
				return writeJSON(io.Out, abi.Boards)
			}
			printBoards(io.Out)
			return nil
		},
	}
	addOutputFlag(cmd.Flags(), &format)
	return cmd
}

// printBoards writes abi.Boards as an aligned table, sizes as Kubernetes
// quantities, the clock last (the columns before it keep their places).
func printBoards(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintln(tw, "NAME\tSRAM\tPSRAM\tFLASH\tPOD-MEMORY\tAPP-IMAGE\tFIRMWARE\tSD\tINGRESS-STACK\tEVENTS-STACK\tINTERP-STACK\tINPROC-CALLS\tWASM-FEATURES\tCLOCK")
	size := func(n int64) string {
		if n == 0 {
			return "-"
		}
		return modcheck.FormatBytes(n)
	}
	for _, b := range abi.Boards {
		features := make([]string, len(b.Features))
		for i, f := range b.Features {
			features[i] = string(f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%gMHz\n", b.Name, size(b.SRAM), size(b.PSRAM), size(b.Flash),
			size(b.PodMemory), size(b.AppImage), size(b.FirmwareBase), size(b.SD), size(b.IngressWorkerStack), size(b.EventsStack),
			size(b.InterpreterStack), b.InProcessCalls(), strings.Join(features, ","), b.Time.ClockMHz)
	}
}

// boardName is the --board flag: a name of abi.Boards, refused as it is
// parsed otherwise, so that a wrong one is a usage mistake naming the flag.
type boardName struct{ p *string }

// addBoardFlag adds --board to build and serve.
func addBoardFlag(f *pflag.FlagSet, p *string) {
	f.Var(boardName{p}, "board", "board profile to build for, overriding kube32.yaml's board: ("+strings.Join(abi.BoardNames(), ", ")+"; see kube32 boards)")
}

func (b boardName) Set(s string) error {
	if _, err := abi.LookupBoard(s); err != nil {
		return err
	}
	*b.p = s
	return nil
}

func (b boardName) String() string {
	if b.p == nil {
		return ""
	}
	return *b.p
}

func (b boardName) Type() string { return "name" }

// addBoardTimeFlags adds the flags of time on the board to serve, test
// and node (docs/boards.md, "Time on the board").
func addBoardTimeFlags(f *pflag.FlagSet, clock *bool, slow *time.Duration) {
	f.BoolVar(clock, "board-clock", false,
		"run the pods on the board's clock: one callback at a time per node, each taking at least its board time, and --handler-timeout counting board time")
	f.DurationVar(slow, "slow-callback", abi.SlowCallbackDefault,
		"board time past which a callback is slow: one [POD] line each, and the web view marks the pod")
}
