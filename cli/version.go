package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/kube32/kube32/host"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi"
)

// versionInfo is what `kube32 version` reports; its JSON is `-o json`.
type versionInfo struct {
	// Version is the CLI's module version, "(devel)" when built from a
	// checkout without one.
	Version string `json:"version"`
	// Revision, Time and Modified are the commit the CLI was built from,
	// its time and whether the checkout had changes; "" and false when the
	// build recorded none.
	Revision string `json:"revision"`
	Time     string `json:"time"`
	Modified bool   `json:"modified"`
	ABI      string `json:"abi"`    // the version of k32_app_abi (abi/k32.wit's package)
	Go       string `json:"go"`     // the Go toolchain that built the CLI
	Wazero   string `json:"wazero"` // the wazero module version
}

// readVersions reads the versions from the binary's build information.
func readVersions() versionInfo {
	v := versionInfo{Version: "(devel)", ABI: abi.Version, Go: runtime.Version(), Wazero: host.WazeroVersion()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the text of `kube32 version`, one line per part.
func (v versionInfo) String() string {
	var b strings.Builder
	b.WriteString("kube32 " + v.Version)
	if v.Revision != "" {
		b.WriteString(" (" + v.Revision)
		if v.Time != "" {
			b.WriteString(", " + v.Time)
		}
		if v.Modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, "\nabi    %s\ngo     %s\nwazero %s\n", v.ABI, v.Go, v.Wazero)
	return b.String()
}

func newVersionCommand(io IOStreams) *cobra.Command {
	var format outputFormat
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the versions of kube32, its pod ABI, Go and wazero",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVersion(io.Out, format)
		},
	}
	addOutputFlag(cmd.Flags(), &format)
	return cmd
}

func runVersion(w io.Writer, format outputFormat) error {
	v := readVersions()
	if format == outputJSON {
		return writeJSON(w, v)
	}
	_, err := io.WriteString(w, v.String())
	return err
}
