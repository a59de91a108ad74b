package pod

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

func TestGuestReadsTheRequestAndEnv(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), func(c *Config) {
		c.Env = []EnvVar{{"GREETING", "hello from echo"}, {"GREETING", "shadowed"}}
	})
	url := serve(t, p)
	res := do(t, http.MethodPost, url+"/echo?a=1&b=two%20words", "the request body", "X-Test", "v1")
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	noent := testpods.Code(abi.ErrNoEnt)
	wantLines(t, res.body,
		"method=POST", "path=/echo", "query=a=1&b=two%20words", "x-test=v1", "x-missing="+noent,
		"method-cap1=4", "body=the request body", "env=hello from echo", "env-missing="+noent)
	if ct := res.header.Get("Content-Type"); ct != "text/plain" {
		t.Errorf("Content-Type %q, want the queued text/plain", ct)
	}
}

func TestGuestReadsAllHeaders(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "probe"), nil))
	res := get(t, url+"/headers", "X-Test", "v2")
	host := strings.TrimPrefix(url, "http://")
	for _, want := range []string{"headers=Host: " + host + "\r\n", "X-Test: v2\r\n"} {
		if !strings.Contains(res.body, want) {
			t.Errorf("headers %q lack %q", res.body, want)
		}
	}
}

func TestFunctionsOutsideTheirCallbackAreInvalid(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "probe"), nil))
	res := get(t, url+"/outside")
	if res.status != http.StatusCreated {
		t.Errorf("status %d, want the 201 set by k32_resp_status", res.status)
	}
	if res.header.Get("X-Ok") != "yes" || res.header.Get("X-A") != "" {
		t.Errorf("headers %v: want X-Ok and no header with CR/LF", res.header)
	}
	inval, noent := testpods.Code(abi.ErrInval), testpods.Code(abi.ErrNoEnt)
	wantLines(t, res.body,
		"event_topic="+inval, "event_data="+inval, "status_700="+inval, "status_99="+inval,
		"header_bad_name="+inval, "header_crlf="+inval, "header_ok=0", "status_201=0",
		"http_status="+noent, "http_header="+noent, "log_level_9="+inval, "sleep=0", "time_positive=1", "random=0",
		"status_after_head="+inval, "header_after_head="+inval, "asset_after_head="+inval)
}

func TestEventCallbackSeesItsMessageOnly(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), nil)
	got, err := p.Event(context.Background(), "echo.events", []byte("payload"))
	if err != nil || got != 7 {
		t.Fatalf("Event = %d, %v; want 7 (the data length)", got, err)
	}
	for _, want := range []string{"topic=echo.events", "data=payload", "req_path=" + testpods.Code(abi.ErrInval)} {
		if !logged(p, "k32", want) {
			t.Errorf("log lacks %q: %v", want, p.Logs())
		}
	}
}

func TestHandleResultPicksTheStatus(t *testing.T) {
	p := startPod(t, onePage(t, "probe"), nil)
	url := serve(t, p)
	if res := get(t, url+"/teapot"); res.status != http.StatusTeapot || res.header.Get("X-Queued") != "yes" {
		t.Errorf("/teapot: %d %v, want 418 with the queued header", res.status, res.header)
	}
	if res := get(t, url+"/neg"); res.status != http.StatusInternalServerError {
		t.Errorf("/neg: %d, want 500", res.status)
	}
	if !logged(p, "k32", "k32_handle returned "+testpods.Code(abi.ErrInval)+" ("+abi.ErrInval.Error()+")") {
		t.Errorf("log lacks the negative result: %v", p.Logs())
	}
	if res := get(t, url+"/nowhere"); res.status != http.StatusNotFound {
		t.Errorf("/nowhere: %d, want the guest's 404", res.status)
	}
}

func TestLogStreams(t *testing.T) {
	var seen lines
	p := startPod(t, onePage(t, "probe"), func(c *Config) { c.Log = seen.add })
	url := serve(t, p)
	get(t, url+"/log")
	for _, want := range []struct{ stream, text string }{
		{"k32", "hello from k32_log"}, {"stdout", "to stdout"}, {"stdout", "partial line"}, {"stderr", "to stderr"},
	} {
		if !logged(p, want.stream, want.text) || !seen.has(want.stream, want.text) {
			t.Errorf("%s line %q missing from Logs or Config.Log", want.stream, want.text)
		}
	}
	for _, l := range p.Logs() {
		if l.Text == "hello from k32_log" && l.Level != 2 {
			t.Errorf("k32_log level %d, want 2", l.Level)
		}
	}
}

func TestLogRingKeepsTheLast1000Lines(t *testing.T) {
	p := New(Config{Namespace: "default", Name: "ring"})
	for i := range 1500 {
		p.log("k32", 1, strings.Repeat("x", i%3)+"#"+itoa(i))
	}
	l := p.Logs()
	if len(l) != 1000 || !strings.HasSuffix(l[0].Text, "#500") || !strings.HasSuffix(l[999].Text, "#1499") {
		t.Fatalf("ring holds %d lines from %q to %q", len(l), l[0].Text, l[len(l)-1].Text)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestGuestGetsTheExactHeaderLines: k32_req_headers gives every header
// line exactly, Host first and then by name, repeated values as repeated
// lines, truncated at the guest's capacity with the full length returned;
// k32_req_header joins repeated values with ", " (docs/abi.md, "Request").
func TestGuestGetsTheExactHeaderLines(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "probe"), nil))
	long := strings.Repeat("v", 5000) // past the probe's 4096-byte buffer
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Raw, so that the test knows every header the server sees.
	_, err = io.WriteString(conn, "GET /headers HTTP/1.1\r\nHost: pod.test\r\nX-Multi: one\r\n"+
		"x-multi: two\r\nA-First: 1\r\nX-Long: "+long+"\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	lines := "Host: pod.test\r\nA-First: 1\r\nX-Long: " + long + "\r\nX-Multi: one\r\nX-Multi: two\r\n"
	for _, want := range []string{
		"headers=" + lines[:4096] + "\n",
		fmt.Sprintf("headers_len=%d\n", len(lines)),
		fmt.Sprintf("headers_cap8=%d\n", len(lines)),
		"headers_small=" + lines[:8] + "########\n",
		"x-multi=one, two\n",
		"x-multi_cap5=8\n",
		"x-multi_small=one, ###########\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the probe's answer lacks %q:\n%.300q", want, body)
		}
	}
}

// TestQueuedResponseHeadersReachTheClientOnce: k32_resp_header's names are
// canonical, a name's values keep their order, and the next callback's
// answer carries none of them (the queue is the pod's, reused).
func TestQueuedResponseHeadersReachTheClientOnce(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "probe"), nil))
	res := get(t, url+"/resp-headers")
	if got := res.header.Values("X-Rep"); !slices.Equal(got, []string{"1", "2"}) || res.header.Get("X-Lower") != "a" {
		t.Errorf("headers %v: want X-Rep: 1, X-Rep: 2 and X-Lower: a", res.header)
	}
	if res.body != "queued\n" {
		t.Errorf("body %q", res.body)
	}
	res = get(t, url+"/hello")
	if res.header.Get("X-Rep") != "" || res.header.Get("X-Lower") != "" {
		t.Errorf("the next answer carries the last one's headers: %v", res.header)
	}
}

// headerKey finds the keys http.Header keeps, as textproto does.
func TestHeaderKeyIsTextprotosCanonicalKey(t *testing.T) {
	for _, name := range []string{"", "x-test", "X-TEST", "content-type", "a-b-c", "-x", "x--y", "Foo_bar",
		"bad name", "x\x00", "üml", "1st-", "WWW-AUTHENTICATE", "x-" + strings.Repeat("long", 40)} {
		if got, want := string(headerKey(nil, []byte(name))), textproto.CanonicalMIMEHeaderKey(name); got != want {
			t.Errorf("headerKey(%q) = %q, want %q", name, got, want)
		}
	}
}
