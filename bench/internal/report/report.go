// Package report is the one line each bench program prints per figure so
// that bench/all can gather them into one table:
//
//	RESULT name kube32=53211 baseline=74012 unit=req/s
//
// The ratio is kube32/baseline; a baseline of 0 means the figure has none.
package report

import (
	"fmt"
	"strconv"
	"strings"
)

// prefix starts every result line.
const prefix = "RESULT "

// Line is one figure of a bench program: kube32's and its baseline's,
// measured in the same run.
type Line struct {
	Name     string // a row of bench/all's table, e.g. "echo"; no spaces
	Kube32   float64
	Baseline float64 // 0: none
	Unit     string  // "req/s", "µs", "bytes", ...; no spaces
}

// Ratio is Kube32/Baseline, or 0 without a baseline.
func (l Line) Ratio() float64 {
	if l.Baseline == 0 {
		return 0
	}
	return l.Kube32 / l.Baseline
}

// String is the line as Print writes it.
func (l Line) String() string {
	return fmt.Sprintf("%s%s kube32=%s baseline=%s unit=%s", prefix, l.Name,
		strconv.FormatFloat(l.Kube32, 'g', -1, 64), strconv.FormatFloat(l.Baseline, 'g', -1, 64), l.Unit)
}

// Print writes the result line of one figure on standard output.
func Print(name string, kube32, baseline float64, unit string) {
	fmt.Println(Line{Name: name, Kube32: kube32, Baseline: baseline, Unit: unit})
}

// Parse reads a result line; ok is false for any other line.
func Parse(s string) (l Line, ok bool, err error) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), prefix)
	if !found {
		return Line{}, false, nil
	}
	fields := strings.Fields(rest)
	if len(fields) != 4 {
		return Line{}, true, fmt.Errorf("result line %q: want a name and kube32=, baseline=, unit=", s)
	}
	l.Name = fields[0]
	for _, f := range fields[1:] {
		key, value, _ := strings.Cut(f, "=")
		switch key {
		case "kube32", "baseline":
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return Line{}, true, fmt.Errorf("result line %q: %s: %v", s, key, err)
			}
			if key == "kube32" {
				l.Kube32 = v
			} else {
				l.Baseline = v
			}
		case "unit":
			l.Unit = value
		default:
			return Line{}, true, fmt.Errorf("result line %q: unknown field %q", s, key)
		}
	}
	return l, true, nil
}
