package report

import "testing"

func TestParseReadsWhatStringWrites(t *testing.T) {
	want := Line{Name: "call-cross-node-p50", Kube32: 27.25, Baseline: 19, Unit: "µs"}
	got, ok, err := Parse(want.String())
	if err != nil || !ok || got != want {
		t.Fatalf("Parse(%q) = %+v, %v, %v; want %+v", want.String(), got, ok, err, want)
	}
	if r := got.Ratio(); r != 27.25/19 {
		t.Errorf("Ratio = %v", r)
	}
	if r := (Line{Kube32: 3}).Ratio(); r != 0 {
		t.Errorf("Ratio without a baseline = %v, want 0", r)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line   string
		ok     bool
		hasErr bool
	}{
		{"  ratio kube32/plain: 0.75", false, false},
		{"RESULT echo kube32=1 baseline=2 unit=req/s", true, false},
		{"RESULT echo kube32=fast baseline=2 unit=req/s", true, true},
		{"RESULT echo kube32=1 baseline=2", true, true},
		{"RESULT echo kube32=1 baseline=2 speed=3", true, true},
	} {
		_, ok, err := Parse(tc.line)
		if ok != tc.ok || (err != nil) != tc.hasErr {
			t.Errorf("Parse(%q): ok %v, err %v; want ok %v, error %v", tc.line, ok, err, tc.ok, tc.hasErr)
		}
	}
}
