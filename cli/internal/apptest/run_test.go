package apptest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// app is a small HTTP app on a loopback socket: JSON items, an echo, a
// redirect, and an SSE stream that POST /say publishes on.
func app(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	clients := map[chan string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Page", r.URL.Query().Get("page"))
		fmt.Fprint(w, `{"items":[{"id":7,"title":"a"},{"id":8,"title":"b"}],"ok":true}`)
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s", r.Header.Get("Content-Type"), r.Header.Get("X-Id"), b)
	})
	var calls int
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		fmt.Fprint(w, calls)
		mu.Unlock()
	})
	mux.HandleFunc("GET /moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/items", http.StatusFound)
	})
	mux.HandleFunc("POST /say", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		for c := range clients {
			c <- string(b)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		c := make(chan string, 16)
		mu.Lock()
		clients[c] = true
		n := len(clients)
		mu.Unlock()
		defer func() { mu.Lock(); delete(clients, c); mu.Unlock() }()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: presence\ndata: {\"viewers\":%d}\n\n", n)
		w.(http.Flusher).Flush()
		for {
			select {
			case msg := <-c:
				fmt.Fprintf(w, "event: chat\ndata: %s\n\n", msg)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func runSource(t *testing.T, base, src string) []Result {
	t.Helper()
	f, err := Parse("tests/t.hurl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return RunFile(context.Background(), Env{Ingress: base, Wait: 2 * time.Second}, f)
}

// Requests go to the app with their query parameters, headers and body,
// variables expanded (ingress, and those captured by an earlier entry);
// asserts read the status, headers, body and JSON; redirects are not
// followed.
func TestRunSendsRequestsAndChecksAnswers(t *testing.T) {
	s := app(t)
	results := runSource(t, s.URL, `GET {{ingress}}/items
[QueryStringParams]
page: 2
HTTP 200
Content-Type: application/json
X-Page: 2
[Captures]
second: jsonpath "$.items[1].id"
title: jsonpath "$.items[0]" jsonpath "$.title"
[Asserts]
jsonpath "$.items" count == 2
jsonpath "$.items[0].id" >= 7
jsonpath "$.ok" == true
jsonpath "$.missing" not exists
body startsWith "{"

POST /echo
X-Id: {{title}}
{"id": {{second}}}
HTTP 200
[Asserts]
body == "application/json a {\"id\": 8}\n"

GET /moved
HTTP 302
[Asserts]
header "Location" == "/items"
`)
	for _, r := range results {
		if r.Outcome != Pass {
			t.Errorf("%s %s: %s %q %s", r.Where(), r.Name, r.Outcome, r.Failures, r.Answer)
		}
	}
	if len(results) != 3 || results[1].Name != "POST /echo" || results[0].Name != "GET /items" {
		t.Errorf("results: %+v", results)
	}
}

// sse "path" "event" is the next such event on the stream after the
// request was sent: the stream is open before the request, so an event
// the request causes is never missed.
func TestRunSSEReadsTheEventTheRequestCaused(t *testing.T) {
	s := app(t)
	results := runSource(t, s.URL, `POST /say
{"type":"chat","text":"hi"}
HTTP 202
[Asserts]
sse "/events" "chat" jsonpath "$.text" == "hi"
sse "/events" "presence" jsonpath "$.viewers" == 1
`)
	if len(results) != 1 || results[0].Outcome != Pass {
		t.Fatalf("results: %+v", results)
	}
}

// A failed expectation names the request, the assert's line and
// expectation, what came, and the answer; the file's later entries are
// skipped.
func TestRunFailureNamesRequestExpectationAndAnswer(t *testing.T) {
	s := app(t)
	results := runSource(t, s.URL, `GET /items
HTTP 200
[Asserts]
jsonpath "$.items[0].title" == "z"
header "X-None" exists
sse "/events" "chat" exists

GET /items
HTTP 200
`)
	if len(results) != 2 || results[0].Outcome != Fail || results[1].Outcome != Skip {
		t.Fatalf("results: %+v", results)
	}
	r := results[0]
	want := []string{
		`tests/t.hurl:4: expected jsonpath "$.items[0].title" == "z", got "a"`,
		`tests/t.hurl:5: expected header "X-None" exists, got nothing`,
		`tests/t.hurl:6: expected sse "/events" "chat" exists, got nothing (within 2s; events on /events: presence)`,
	}
	if strings.Join(r.Failures, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant\n%s", strings.Join(r.Failures, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(r.Answer, `200 OK, Content-Type application/json, body "{\"items\"`) {
		t.Errorf("answer: %s", r.Answer)
	}
}

// failCase is the source of one entry that fails, and how its first
// failure starts.
type failCase struct{ src, want string }

// checkFails runs each case's entry against the app at url: it must fail,
// its first failure starting with the case's want.
func checkFails(t *testing.T, url string, cases []failCase) {
	t.Helper()
	for _, c := range cases {
		results := runSource(t, url, c.src)
		if len(results) != 1 || results[0].Outcome != Fail || len(results[0].Failures) == 0 || !strings.HasPrefix(results[0].Failures[0], c.want) {
			t.Errorf("%q: %+v, want a failure starting %q", c.src, results, c.want)
		}
	}
}

// What cannot run fails its entry with the reason: an unknown variable,
// a body that is not JSON, a stream that is not one, no answer.
func TestRunFailsClearlyOnWhatCannotRun(t *testing.T) {
	s := app(t)
	checkFails(t, s.URL, []failCase{
		{"GET /items?id={{nope}}\n", "tests/t.hurl:1: unknown variable {{nope}} (known here: ingress)"},
		{"GET /moved\nHTTP 302\n[Asserts]\njsonpath \"$.a\" exists\n", `tests/t.hurl:4: jsonpath "$.a" exists: not JSON`},
		{"GET /items\nHTTP 200\n[Asserts]\nsse \"/items\" \"x\" exists\n", `tests/t.hurl:4: sse "/items" "x" exists: stream /items: answered 200 OK, Content-Type "application/json", not an event stream`},
		{"GET /items\nHTTP 200\n[Captures]\nx: header \"X-None\"\n", `tests/t.hurl:4: capture x: header "X-None" found nothing`},
		{"GET http://127.0.0.1:1/\n", "tests/t.hurl:1: GET http://127.0.0.1:1/: no answer"},
	})
}

// [Options] retry runs an entry again, retry-interval apart, until its
// asserts hold, and no more than retry times.
func TestRunRetriesUntilTheAssertsHold(t *testing.T) {
	s := app(t)
	results := runSource(t, s.URL, `GET /count
[Options]
retry: 5
retry-interval: 10ms
HTTP 200
[Asserts]
body == "3"

GET /count
[Options]
retry: 1
retry-interval: 1
HTTP 200
[Asserts]
body == "9"
`)
	if len(results) != 2 || results[0].Outcome != Pass {
		t.Fatalf("the third attempt answers 3: %+v", results)
	}
	if r := results[1]; r.Outcome != Fail || len(r.Failures) != 1 || r.Failures[0] != `tests/t.hurl:15: expected body == "9", got "5"` {
		t.Errorf("two attempts (4, then 5) and no more: %+v", r)
	}
}

// What Hurl reads but kube32 test cannot run, or what does not hold,
// fails its entry with the reason: an xpath assert, a template that is
// not a variable, more redirects than max-redirs, a JSON body that
// differs; a redacted capture's value is never printed.
func TestRunFailsHurlsConstructsWithTheReason(t *testing.T) {
	s := app(t)
	checkFails(t, s.URL, []failCase{
		{"GET /items\nHTTP 200\n[Asserts]\nxpath \"//a\" exists\n", `tests/t.hurl:4: xpath "//a" exists: query xpath is not supported by kube32 test: kube32 test has no XPath engine`},
		{"GET /items?n={{randomInt 1 9}}\n", "tests/t.hurl:1: template {{randomInt 1 9}}: kube32 test expands {{variable}}, {{newUuid}} and {{newDate}}"},
		{"GET /moved\n[Options]\nlocation: true\nmax-redirs: 0\n", "tests/t.hurl:1: GET " + s.URL + "/moved: no answer: Get \"/items\": more than 0 redirects ([Options] max-redirs)"},
		{"GET /items\nHTTP 200\n{\"ok\": false}\n", `tests/t.hurl:3: expected body == {"ok":false}, got "{\"items\":`},
		{"POST /echo\n`s3cr3t-token`\nHTTP 200\n[Captures]\ntoken: regex /(s3cr3t-\\w+)/ redact\n[Asserts]\nbody == \"{{token}}\"\n", `tests/t.hurl:7: expected body == "***", got "  ***"`},
	})
}

// Hurl's request forms reach the app as Hurl sends them: a templated
// header name, cookies of the file's jar, Basic authentication, a form in
// order; redirects followed under location are listed by redirects.
func TestRunSendsHurlsRequestForms(t *testing.T) {
	s := app(t)
	results := runSource(t, s.URL, `POST /echo
{{name}}: {{value}}
[Options]
variable: name=X-Id
variable: value=42
`+"```"+`
line
`+"```"+`
HTTP 200
[Asserts]
body == " 42 line\n"

GET /moved
[Options]
location: true
HTTP 200
[Asserts]
redirects count == 1
redirects nth 0 location == "{{ingress}}/items"
url == "{{ingress}}/items"
header "X-Page" == ""
jsonpath "$.items[?@.id > 7].title" == "b"
jsonpath "$..id" count == 2
jsonpath "$..id" includes 8
jsonpath "$.items[0:1]" isObject
jsonpath "$.ok" isBoolean
`)
	for _, r := range results {
		if r.Outcome != Pass {
			t.Errorf("%s %s: %s %q %s", r.Where(), r.Name, r.Outcome, r.Failures, r.Answer)
		}
	}
}
