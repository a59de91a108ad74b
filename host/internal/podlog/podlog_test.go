package podlog

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/host/internal/pod"
)

var t0 = time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)

// kept is a log of two instances: restart 0 wrote a and b, restart 1 c
// and d, a second apart.
var kept = []pod.Line{
	{Time: t0, Text: "a"}, {Time: t0.Add(time.Second), Text: "b"},
	{Time: t0.Add(2 * time.Second), Text: "c", Restart: 1}, {Time: t0.Add(3 * time.Second), Text: "d", Restart: 1},
}

func texts(lines []pod.Line) string {
	var s []string
	for _, l := range lines {
		s = append(s, l.Text)
	}
	return strings.Join(s, ",")
}

// The query parameters of PodLogOptions select the lines as the kubelet
// does: previous instance, since, tail; bad values answer 400 or 422
// naming the parameter.
func TestQuerySelectsLines(t *testing.T) {
	for _, tt := range []struct {
		query, want string
		restarts    int32
	}{
		{"", "a,b,c,d", 1},
		{"tailLines=3", "b,c,d", 1},
		{"tailLines=0", "", 1},
		{"tailLines=10", "a,b,c,d", 1},
		{"previous=true", "a,b", 1},
		{"previous=true&tailLines=1", "b", 1},
		{"sinceTime=" + t0.Add(2*time.Second).Format(time.RFC3339), "c,d", 1},
		{"sinceSeconds=2", "c,d", 1}, // now is t0+4s
	} {
		q, _ := url.ParseQuery(tt.query)
		o, err := Parse(q, t0.Add(4*time.Second))
		if err != nil {
			t.Errorf("%s: %v", tt.query, err)
			continue
		}
		got, err := o.Select(kept, tt.restarts, "main", "web")
		if err != nil || texts(got) != tt.want {
			t.Errorf("%s: %q %v, want %q", tt.query, texts(got), err, tt.want)
		}
	}
	for _, tt := range []struct {
		query, want string
		code        int
	}{
		{"tailLines=x", "tailLines", http.StatusBadRequest},
		{"tailLines=-1", "tailLines", http.StatusUnprocessableEntity},
		{"limitBytes=0", "limitBytes", http.StatusUnprocessableEntity},
		{"sinceSeconds=0", "sinceSeconds", http.StatusUnprocessableEntity},
		{"sinceTime=yesterday", "sinceTime", http.StatusBadRequest},
		{"sinceSeconds=1&sinceTime=" + t0.Format(time.RFC3339), "at most one of sinceTime or sinceSeconds", http.StatusUnprocessableEntity},
	} {
		q, _ := url.ParseQuery(tt.query)
		_, err := Parse(q, t0)
		e, ok := err.(*Error)
		if !ok || e.Code != tt.code || !strings.Contains(e.Message, tt.want) {
			t.Errorf("%s: %v, want %d naming %s", tt.query, err, tt.code, tt.want)
		}
	}
	o, _ := Parse(url.Values{"previous": {"true"}}, t0)
	if _, err := o.Select(kept, 0, "main", "web"); err == nil || err.Error() != `previous terminated container "main" in pod "web" not found` {
		t.Errorf("previous without a restart: %v, want kube-apiserver's 400", err)
	}
	if o, _ := Parse(url.Values{"previous": {"1"}, "follow": {"true"}}, t0); !o.Previous || o.Follow {
		t.Errorf("previous=1&follow=true: %+v, want previous and no follow (the previous instance logs no more)", o)
	}
}

// limitBytes cuts the answer at that many bytes, timestamps included.
func TestLimitBytesCutsTheAnswer(t *testing.T) {
	q, _ := url.ParseQuery("limitBytes=25&timestamps=true")
	o, err := Parse(q, t0)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	Write(rec, httptest.NewRequest("GET", "/", nil), kept, nil, o, nil)
	full := t0.Format(time.RFC3339Nano) + " a\n" + t0.Add(time.Second).Format(time.RFC3339Nano) + " b\n"
	if got := rec.Body.String(); got != full[:25] {
		t.Errorf("limitBytes=25: %q, want %q", got, full[:25])
	}
}
