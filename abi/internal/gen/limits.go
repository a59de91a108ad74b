package gen

import (
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/kube32/kube32/abi"
)

// limitsTemplate holds the fixed prose of docs/limits.md; the tables come
// from abi.Limits and abi.ProtocolNames.
//
//go:embed limits.md.tmpl
var limitsTemplate string

var limitsTmpl = template.Must(template.New("limits.md").Parse(limitsTemplate))

// limitRow is one table row of docs/limits.md.
type limitRow struct{ GoName, Value, Doc, See string }

// Limits renders docs/limits.md.
func Limits() ([]byte, error) {
	var d struct {
		GeneratedBy   string
		Limits, Names []limitRow
	}
	d.GeneratedBy = generatedBy
	for _, l := range abi.Limits {
		value := strconv.FormatInt(l.Value, 10)
		if l.Unit != "" {
			value += " " + l.Unit
		}
		d.Limits = append(d.Limits, limitRow{l.GoName, value, markdownText(l.Doc), l.See})
	}
	for _, n := range abi.ProtocolNames {
		var values []string
		for _, v := range strings.Split(n.Value, ", ") {
			values = append(values, "`"+v+"`")
		}
		d.Names = append(d.Names, limitRow{n.GoName, strings.Join(values, ", "), markdownText(n.Doc), n.See})
	}
	var b bytes.Buffer
	if err := limitsTmpl.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("limits.md.tmpl: %w", err)
	}
	return b.Bytes(), nil
}
