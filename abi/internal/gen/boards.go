package gen

import (
	"bytes"
	_ "embed"
	"fmt"
	"strconv"
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

// timeRow is one figure of the boards' cost models in docs/boards.md: its
// name, its value on each board (in the order of abi.Boards) and the
// sources it rests on (the numbers of the list under the table).
type timeRow struct {
	Figure, Sources string
	Values          []string
}

// timeClasses names the instruction classes, in abi.InstrClass order, with
// their sources.
var timeClasses = [abi.InstrClasses][2]string{
	{"Plain instruction", "[1], [2], [3], [4]"}, {"Block, loop, end, else", "[1], [3]"}, {"Branch", "[1], [2], [3]"},
	{"Load or store", "[2], [3], [10]"}, {"Call", "[1], [3]"}, {"Indirect call", "[1] (estimate: a call and its type check)"},
	{"Integer division", "[6]"}, {"f32 operation", "[6]"}, {"f64 operation", "[6]"},
	{"Bulk memory, memory.grow, table", "estimate"},
}

// timeHost names the host costs, in the order of hostCosts, with their
// sources.
var timeHost = [][2]string{
	{"Host function call (each)", "[3]"}, {"`k32_resp_write`", "[7] (fixed part: estimate)"}, {"`k32_resp_asset`", "[7], [8]"},
	{"`k32_log`, stdout, stderr", "estimate"}, {"In-process call", "estimate"}, {"Call to another node or outside", "[7], [11]"},
	{"TLS handshake of an `https://` call", "[9]"}, {"`k32_publish`", "estimate"},
}

// hostCosts is a board's host costs in the order of timeHost.
func hostCosts(h abi.HostCycles) []string {
	cost := func(c abi.Cost) string {
		if c.PerByte == 0 {
			return cycles(c.Fixed)
		}
		return cycles(c.Fixed) + " + " + cycles(c.PerByte) + "/byte"
	}
	return []string{cost(h.Call), cost(h.RespWrite), cost(h.RespAsset), cost(h.Log), cost(h.InProcessCall),
		cost(h.NodeCall), cycles(h.TLSHandshake), cost(h.Publish)}
}

// cycles formats a figure of cycles with thousands separators.
func cycles(c float64) string {
	n := int64(c)
	if float64(n) != c {
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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
		Times, Hosts                               []timeRow
		SlowCallback                               string
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
		SlowCallback:       abi.SlowCallbackDefault.String(),
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
	clock := timeRow{Figure: "Clock of the core", Sources: "[5]"}
	for _, b := range abi.Boards {
		clock.Values = append(clock.Values, cycles(b.Time.ClockMHz)+" MHz")
	}
	d.Times = append(d.Times, clock)
	for c, f := range timeClasses {
		row := timeRow{Figure: f[0], Sources: f[1]}
		for _, b := range abi.Boards {
			row.Values = append(row.Values, cycles(b.Time.Instructions.Of(abi.InstrClass(c))))
		}
		d.Times = append(d.Times, row)
	}
	for i, f := range timeHost {
		row := timeRow{Figure: f[0], Sources: f[1]}
		for _, b := range abi.Boards {
			row.Values = append(row.Values, hostCosts(b.Time.Host)[i])
		}
		d.Hosts = append(d.Hosts, row)
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
