package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kube32/kube32/internal/termtext"
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

// logLines is the Logf of a node or an Ingress controller: each line goes to
// w made safe by termtext.Line, the rule of pod logs, since it may quote
// text from outside (a registry's error, an object of a cluster): one line,
// no control character (docs/serve.md, "Hostile clients").
func logLines(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintln(w, termtext.Line(fmt.Sprintf(format, args...)))
	}
}
