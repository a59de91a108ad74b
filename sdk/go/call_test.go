package k32

import "testing"

func TestNextCallBuffer(t *testing.T) {
	tests := []struct {
		name          string
		last, max     int
		contentLength string
		want          int
	}{
		{"no-grow-allowed", 64 << 10, 0, "100000", 64 << 10},
		{"max-not-above-last", 64 << 10, 64 << 10, "", 64 << 10},
		{"content-length-used", 64 << 10, 1 << 20, "100000", 100000},
		{"content-length-capped-at-max", 64 << 10, 80000, "100000", 80000},
		{"doubles-without-content-length", 64 << 10, 1 << 20, "", 128 << 10},
		{"doubles-on-bad-content-length", 1000, 1 << 20, "12x", 2000},
		{"small-buffer-grows-to-1k", 10, 1 << 20, "", 1024},
		{"stale-content-length-ignored", 4096, 1 << 20, "100", 8192},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextCallBuffer(tt.last, tt.max, tt.contentLength); got != tt.want {
				t.Errorf("nextCallBuffer(%d, %d, %q) = %d, want %d", tt.last, tt.max, tt.contentLength, got, tt.want)
			}
		})
	}
}

func TestParseContentLength(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "42": 42, "1048576": 1 << 20} {
		if got, ok := parseContentLength(in); !ok || got != want {
			t.Errorf("parseContentLength(%q) = %d, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "-1", "+1", " 1", "1e3", "99999999999999999999"} {
		if _, ok := parseContentLength(bad); ok {
			t.Errorf("parseContentLength(%q) accepted", bad)
		}
	}
}

func TestCallOffWasmReportsNotSupported(t *testing.T) {
	if _, err := Call("GET", "http://echo/", Header{"X": {"1"}}, nil); err != ErrNotSup {
		t.Errorf("err = %v, want ErrNotSup from the host stub", err)
	}
	if _, err := Call("GET", "http://echo/", Header{"X": {"a\r\nb"}}, nil); err != ErrInval {
		t.Errorf("header with CRLF: err = %v, want ErrInval before any host call", err)
	}
}
