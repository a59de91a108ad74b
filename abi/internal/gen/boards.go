package gen

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
)

// boardsTemplate holds the fixed prose of docs/boards.md; the tables come
// from abi.Boards and abi.WasmFeatures.
//
//go:embed boards.md.tmpl
var boardsTemplate string

var boardsTmpl = template.Must(template.New("boards.md").Parse(boardsTemplate))

// boardRow is one board of docs/boards.md, its sizes as quantities.
type boardRow struct {
	Name, Doc, SRAM, PSRAM, Flash, PodMemory, AppImage, FirmwareBase, SD, IngressWorkerStack, EventsStack, InterpreterStack, InProcessCalls, Features string
}

// featureRow is one feature of docs/boards.md.
type featureRow struct {
	Feature, Doc, Boards string
}

// Boards renders docs/boards.md.
func Boards() ([]byte, error) {
	d := struct {
		GeneratedBy                                string
		Boards                                     []boardRow
		Features                                   []featureRow
		AppPartition4M, PSRAMReserve, SDCard, Page string
		CallbackStack, InProcessCallStack          string
		Budget                                     map[string]string // the module budgets' values, by constant
	}{
		GeneratedBy:        generatedBy,
		AppPartition4M:     modcheck.FormatBytes(abi.AppPartition(4 << 20)),
		PSRAMReserve:       modcheck.FormatBytes(abi.PSRAMReserve),
		SDCard:             modcheck.FormatBytes(abi.SDCardBudget),
		Page:               modcheck.FormatBytes(modcheck.PageSize),
		CallbackStack:      modcheck.FormatBytes(abi.CallbackStack),
		InProcessCallStack: modcheck.FormatBytes(abi.InProcessCallStackBoard),
	}
	d.Budget = map[string]string{}
	for _, l := range abi.Limits {
		if l.See == "boards.md" {
			d.Budget[l.GoName] = strings.TrimSpace(fmt.Sprintf("%d %s", l.Value, l.Unit))
		}
	}
	size := func(n int64) string {
		if n == 0 {
			return "none"
		}
		return modcheck.FormatBytes(n)
	}
	for _, b := range abi.Boards {
		var features []string
		for _, f := range b.Features {
			features = append(features, "`"+string(f)+"`")
		}
		d.Boards = append(d.Boards, boardRow{b.Name, markdownText(b.Doc), size(b.SRAM), size(b.PSRAM), size(b.Flash),
			size(b.PodMemory), size(b.AppImage), size(b.FirmwareBase), size(b.SD), size(b.IngressWorkerStack), size(b.EventsStack), size(b.InterpreterStack), fmt.Sprint(b.InProcessCalls()), strings.Join(features, ", ")})
	}
	for _, f := range abi.WasmFeatures {
		var on []string
		for _, b := range abi.Boards {
			if b.Runs(f.Feature) {
				on = append(on, b.Name)
			}
		}
		runs := "none"
		if len(on) == len(abi.Boards) {
			runs = "all"
		} else if len(on) > 0 {
			runs = strings.Join(on, ", ")
		}
		d.Features = append(d.Features, featureRow{string(f.Feature), markdownText(f.Doc), runs})
	}
	var b bytes.Buffer
	if err := boardsTmpl.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("boards.md.tmpl: %w", err)
	}
	return b.Bytes(), nil
}
