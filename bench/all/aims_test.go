package main

import "testing"

func TestAims(t *testing.T) {
	for _, tc := range []struct {
		row   string
		ratio float64
		has   bool
		met   bool
	}{
		{"static", 1.28, true, true},
		{"static", 1.02, true, false},
		{"ingress-worker", 0.61, true, true},
		{"ingress-worker", 0.55, true, false},
		{"call-cross-node-p50", 1.1, true, true},
		{"call-cross-node-p50", 1.4, true, false},
		{"sizes-spa-gz-vs-zopfli", 0.997, true, true},
		{"sizes-spa-gz-vs-zopfli", 1.01, true, false},
		{"compress-vs-zopfli", 1.05, false, false},
		{"boardtime-counted-echo", 1.2, true, true},
		{"boardtime-counted-spin", 1.4, true, false},
		{"boardtime-clock", 0.95, true, true},
		{"boardtime-clock", 0.8, true, false},
	} {
		a, has := aimOf(tc.row)
		if has != tc.has || (has && a.met(tc.ratio) != tc.met) {
			t.Errorf("%s at %.3f: has aim %v, met %v; want %v, %v", tc.row, tc.ratio, has, has && a.met(tc.ratio), tc.has, tc.met)
		}
	}
}
