package ingress

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
)

func TestParseEventStreams(t *testing.T) {
	specs, err := parseEventStreams(" /a=x, y ;/b=kube32.presence;")
	if err != nil || len(specs) != 2 || specs[0].path != "/a" || strings.Join(specs[0].topics, "|") != "x|y" ||
		specs[1].path != "/b" || specs[1].topics[0] != abi.TopicPresence {
		t.Fatalf("got %+v, %v", specs, err)
	}
	for _, bad := range []string{"a=x", "/a", "/a=", "/a=x;/a=y", "/a=x y"} {
		if _, err := parseEventStreams(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestEventName(t *testing.T) {
	for data, want := range map[string]string{
		`{"type":"chat","t":"x"}`: "chat", `{"t":"stats"}`: "stats", `{"type":3,"t":"y"}`: "y",
		`{"type":""}`: "", `[1]`: "", `plain`: "", `{"type":"a\nb"}`: "",
	} {
		if got := eventName([]byte(data)); got != want {
			t.Errorf("eventName(%s) = %q, want %q", data, got, want)
		}
	}
}
