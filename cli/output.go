package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// outputFormat is the -o flag of the commands with a machine-readable
// output: "text" (the default) or "json".
type outputFormat string

const (
	outputText outputFormat = "text"
	outputJSON outputFormat = "json"
)

// addOutputFlag adds -o, --output; a value other than text or json is a
// usage mistake.
func addOutputFlag(f *pflag.FlagSet, o *outputFormat) {
	*o = outputText
	f.VarP(o, "output", "o", "output format: text or json")
}

func (o *outputFormat) Set(s string) error {
	switch f := outputFormat(s); f {
	case outputText, outputJSON:
		*o = f
		return nil
	}
	return fmt.Errorf("want text or json")
}

func (o *outputFormat) String() string { return string(*o) }
func (o *outputFormat) Type() string   { return "format" }

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
