package k32

import (
	"reflect"
	"testing"
)

func TestParseHeaderLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Header
	}{
		{"empty", "", Header{}},
		{"crlf-lines", "Content-Type: text/plain\r\nX-Test: a b\r\n",
			Header{"Content-Type": {"text/plain"}, "X-Test": {"a b"}}},
		{"bare-lf-and-no-final-newline", "a: 1\nb: 2", Header{"A": {"1"}, "B": {"2"}}},
		{"names-canonicalised", "x-multi-word: v\r\n", Header{"X-Multi-Word": {"v"}}},
		{"repeated-names-keep-order", "X-M: 1\r\nx-m: 2\r\n", Header{"X-M": {"1", "2"}}},
		{"optional-whitespace-trimmed", "X:  \tv \t\r\n", Header{"X": {"v"}}},
		{"empty-value", "X-Empty:\r\n", Header{"X-Empty": {""}}},
		{"colon-in-value", "Host: example.com:8080\r\n", Header{"Host": {"example.com:8080"}}},
		{"line-without-colon-skipped", "garbage\r\nA: 1\r\n", Header{"A": {"1"}}},
		{"empty-name-skipped", ": v\r\nA: 1\r\n", Header{"A": {"1"}}},
		{"invalid-name-skipped", "Bad Name: v\r\nA: 1\r\n", Header{"A": {"1"}}},
		{"blank-lines-skipped", "\r\n\r\nA: 1\r\n\r\n", Header{"A": {"1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseHeaderLines(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseHeaderLines(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatHeaderLines(t *testing.T) {
	got, err := formatHeaderLines(Header{"X-B": {"2", "3"}, "Content-Type": {"text/plain"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Content-Type: text/plain\r\nX-B: 2\r\nX-B: 3\r\n"; got != want {
		t.Errorf("got %q, want %q (sorted by name, repeated values in order)", got, want)
	}
	if got, err := formatHeaderLines(nil); got != "" || err != nil {
		t.Errorf("nil header: got %q, %v", got, err)
	}
	for _, bad := range []Header{
		{"X": {"a\r\nInjected: 1"}},
		{"X": {"a\nb"}},
		{"Bad Name": {"v"}},
		{"": {"v"}},
	} {
		if _, err := formatHeaderLines(bad); err != ErrInval {
			t.Errorf("formatHeaderLines(%q) error = %v, want ErrInval", bad, err)
		}
	}
}

func TestFormatThenParseRoundTrips(t *testing.T) {
	h := Header{"Accept": {"a/b", "c/d"}, "X-Trace-Id": {"42"}}
	s, err := formatHeaderLines(h)
	if err != nil {
		t.Fatal(err)
	}
	if got := parseHeaderLines(s); !reflect.DeepEqual(got, h) {
		t.Errorf("round trip: got %v, want %v", got, h)
	}
}

func TestCanonicalHeaderKey(t *testing.T) {
	for in, want := range map[string]string{
		"content-type":     "Content-Type",
		"CONTENT-TYPE":     "Content-Type",
		"Content-Type":     "Content-Type",
		"x-k32-call-id":    "X-K32-Call-Id",
		"etag":             "Etag",
		"-x":               "-X",
		"":                 "",
		"bad name":         "bad name", // not a token: unchanged, as net/textproto does
		"a_b":              "A_b",
		"www-authenticate": "Www-Authenticate",
	} {
		if got := CanonicalHeaderKey(in); got != want {
			t.Errorf("CanonicalHeaderKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHeaderMethodsAreCaseInsensitive(t *testing.T) {
	h := Header{}
	h.Set("x-a", "1")
	h.Add("X-A", "2")
	if got := h.Get("X-a"); got != "1" {
		t.Errorf("Get = %q, want first value 1", got)
	}
	if got := h.Values("x-A"); !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("Values = %v", got)
	}
	c := h.Clone()
	h.Del("x-a")
	if len(h) != 0 || len(c["X-A"]) != 2 {
		t.Errorf("Del or Clone shared state: h=%v clone=%v", h, c)
	}
}
