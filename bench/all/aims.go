package main

import (
	"fmt"
	"path"
)

// aim is a bound on a row's ratio kube32/baseline.
type aim struct {
	atLeast bool // ratio ≥ bound; else ratio ≤ bound
	bound   float64
}

func (a aim) met(ratio float64) bool {
	if a.atLeast {
		return ratio >= a.bound
	}
	return ratio <= a.bound
}

func (a aim) String() string {
	if a.atLeast {
		return fmt.Sprintf("≥ %.2f", a.bound)
	}
	return fmt.Sprintf("≤ %.2f", a.bound)
}

// aims are the project's performance and size aims (README), by
// row name or path.Match pattern. A row without one has none.
var aims = []struct {
	row string
	aim aim
}{
	{"static", aim{true, 1.2}},                // StaticBundle .js vs nginx gzip_static
	{"echo", aim{true, 0.9}},                  // Ingress → control-plane C pod vs net/http
	{"ingress-worker", aim{true, 0.6}},        // Ingress → worker C pod vs net/http
	{"api-list-table", aim{true, 0.85}},       // API list as Table vs plain JSON
	{"api-watch", aim{true, 0.9}},             // API watch events vs plain
	{"call-cross-node-p50", aim{false, 1.15}}, // cross-node k32_http_call vs a direct Go request
	{"sizes-*-gz-vs-zopfli", aim{false, 1.0}}, // release bundles no larger than zopfli's
	{"scale-ready-*", aim{false, 1.0}},        // start no slower than linear from N=200
	{"boardtime-counted-*", aim{false, 1.3}},  // counting work: at most 1.3× the uncounted path (issue 31)
	{"boardtime-clock", aim{true, 0.9}},       // --board-clock req/s within 10% of 1 / board time
}

// aimOf is the aim of the row called name.
func aimOf(name string) (aim, bool) {
	for _, a := range aims {
		if ok, _ := path.Match(a.row, name); ok {
			return a.aim, true
		}
	}
	return aim{}, false
}
