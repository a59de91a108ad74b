package apptest

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const sample = `# a comment
GET {{ingress}}/items?x=1
Accept: application/json
[QueryStringParams]
page: 2

HTTP 200
Content-Type: application/json
[Captures]
first: jsonpath "$.items[0].id"
[Asserts]
jsonpath "$.items" count == 3   # a trailing comment
header "X-A" not contains "b"
body matches "^\\{"

POST /echo
{
  "id": "{{first}}"
}
HTTP *
[Asserts]
sse "/events" "chat" jsonpath "$.text" == "hi"
pod "default/echo" restarts == 0
event "echo" "Started" exists

PUT /text
` + "```" + `
line one
line two
` + "```" + `

DELETE /one
` + "`one line`" + `
HTTP/1.1 204
`

// Parse reads requests, headers, sections, the three body forms, the HTTP
// line, implicit header asserts, captures and asserts, each with its line.
func TestParseReadsEntriesWithTheirLines(t *testing.T) {
	f, err := Parse("tests/a.hurl", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 4 {
		t.Fatalf("%d entries, want 4: %+v", len(f.Entries), f.Entries)
	}
	get := f.Entries[0]
	if get.Line != 2 || get.Method != "GET" || get.URL != "{{ingress}}/items?x=1" ||
		!reflect.DeepEqual(get.Headers, []Field{{Line: 3, Name: "Accept", Value: "application/json"}}) ||
		!reflect.DeepEqual(get.Query, []Field{{Line: 5, Name: "page", Value: "2"}}) || get.Body != nil {
		t.Errorf("GET entry: %+v", get)
	}
	if len(get.Captures) != 1 || get.Captures[0].Line != 10 || get.Captures[0].Name != "first" || get.Captures[0].Query.String() != `jsonpath "$.items[0].id"` {
		t.Errorf("captures: %+v", get.Captures)
	}
	var asserts []string
	for _, a := range get.Asserts {
		asserts = append(asserts, strings.Join([]string{strconv.Itoa(a.Line), a.Query.String(), a.Pred.String()}, " | "))
	}
	want := []string{
		`7 | status | == 200`,
		`8 | header "Content-Type" | == "application/json"`,
		`12 | jsonpath "$.items" count | == 3`,
		`13 | header "X-A" | not contains "b"`,
		`14 | body | matches "^\\{"`,
	}
	if !reflect.DeepEqual(asserts, want) {
		t.Errorf("asserts:\n%s\nwant\n%s", strings.Join(asserts, "\n"), strings.Join(want, "\n"))
	}
	post := f.Entries[1]
	if post.Line != 16 || post.Body == nil || post.Body.Kind != "json" || post.Body.Text != "{\n  \"id\": \"{{first}}\"\n}\n" {
		t.Errorf("POST entry: %+v body %q", post, deref(post.Body))
	}
	var kube32 []string
	for _, a := range post.Asserts { // HTTP * asserts no status
		kube32 = append(kube32, a.Query.String()+" "+a.Pred.String())
	}
	if want := []string{`sse "/events" "chat" jsonpath "$.text" == "hi"`, `pod "default/echo" restarts == 0`, `event "echo" "Started" exists`}; !reflect.DeepEqual(kube32, want) {
		t.Errorf("kube32 asserts: %q, want %q", kube32, want)
	}
	if put := f.Entries[2]; put.Method != "PUT" || deref(put.Body) != "line one\nline two\n" || len(put.Asserts) != 0 {
		t.Errorf("PUT entry: %+v body %q", put, deref(put.Body))
	}
	if del := f.Entries[3]; deref(del.Body) != "one line" || len(del.Asserts) != 2 || del.Asserts[0].Query.Kind != "version" || del.Asserts[1].Pred.Value != int64(204) {
		t.Errorf("DELETE entry: %+v", del)
	}
}

func deref(b *Body) string {
	if b == nil {
		return "<nil>"
	}
	return b.Text
}

// A bad file is refused with an error naming the file and line of the
// mistake, and what was wanted there.
func TestParseErrorsNameFileAndLine(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"not a request", "hello\n", `tests/bad.hurl:1: want a request line (METHOD URL`},
		{"status without request", "\n# c\nHTTP 200\n", `tests/bad.hurl:3: an HTTP line with no request above it`},
		{"unknown query", "GET /\nHTTP 200\n[Asserts]\ncookies \"a\" exists\n", `tests/bad.hurl:4: unknown query "cookies": kube32 test knows board-time, body, bytes, certificate, cookie, duration, event, header, ip, jsonpath, md5, pod, rawbytes, redirects, regex, sha256, sse, status, url, variable, version, xpath`},
		{"unknown predicate", "GET /\nHTTP 200\n[Asserts]\nstatus is 200\n", `tests/bad.hurl:4: want a filter (`},
		{"predicate without value", "GET /\nHTTP 200\n[Asserts]\nbody contains\n", `tests/bad.hurl:4: contains wants a value`},
		{"startsWith a number", "GET /\nHTTP 200\n[Asserts]\nbody startsWith 3\n", `tests/bad.hurl:4: startsWith wants a "string" or bytes`},
		{"regex on ==", "GET /\nHTTP 200\n[Asserts]\nbody == /a/\n", `tests/bad.hurl:4: == takes no /regex/`},
		{"bad regex", "GET /\nHTTP 200\n[Asserts]\nbody matches \"(\"\n", `tests/bad.hurl:4: matches: error parsing regexp`},
		{"bad regex literal", "GET /\nHTTP 200\n[Asserts]\nregex /(/ exists\n", `tests/bad.hurl:4: error parsing regexp`},
		{"bad value", "GET /\nHTTP 200\n[Asserts]\nbody == hello\n", `tests/bad.hurl:4: want a value`},
		{"bad hex", "GET /\nHTTP 200\n[Asserts]\nbytes == hex,zz;\n", `tests/bad.hurl:4: hex,zz;: encoding/hex: invalid byte`},
		{"trailing words", "GET /\nHTTP 200\n[Asserts]\nstatus == 200 201\n", `tests/bad.hurl:4: unexpected "201" after the predicate`},
		{"unquoted argument", "GET /\nHTTP 200\n[Asserts]\nheader X == \"a\"\n", `tests/bad.hurl:4: header takes 1 "quoted" argument(s)`},
		{"filter argument", "GET /\nHTTP 200\n[Asserts]\njsonpath \"$.a\" nth \"x\" == 1\n", `tests/bad.hurl:4: nth wants an integer`},
		{"pod field", "GET /\nHTTP 200\n[Asserts]\npod \"web\" memory == 1\n", `tests/bad.hurl:4: pod "web": want a field after it, one of crashed, node, phase, ready, restarts`},
		{"jsonpath", "GET /\nHTTP 200\n[Asserts]\njsonpath \"$[\" exists\n", `tests/bad.hurl:4: jsonpath "$[": `},
		{"jsonpath not RFC 9535", "GET /\nHTTP 200\n[Asserts]\njsonpath \"items\" exists\n", `tests/bad.hurl:4: jsonpath "items": `},
		{"unterminated string", "GET /\nHTTP 200\n[Asserts]\nbody == \"abc\n", `tests/bad.hurl:4: unterminated string`},
		{"unknown escape", "GET /\nHTTP 200\n[Asserts]\nbody == \"a\\qb\"\n", `tests/bad.hurl:4: unknown escape \q`},
		{"curl option", "GET /\n[Options]\ncacert: ca.pem\n", `tests/bad.hurl:3: option cacert is not supported by kube32 test: it is curl's, for TLS`},
		{"option true", "GET /\n[Options]\ninsecure: true\n", `tests/bad.hurl:3: option insecure: true is not supported by kube32 test: the cluster's Ingress answers plain HTTP`},
		{"unknown option", "GET /\n[Options]\nfast: true\n", `tests/bad.hurl:3: option "fast" is not supported by kube32 test (docs/testing.md lists `},
		{"retry", "GET /\n[Options]\nretry: 101\n", `tests/bad.hurl:3: retry: "101": want a count from 0 to 100`},
		{"retry-interval", "GET /\n[Options]\nretry-interval: soon\n", `tests/bad.hurl:3: retry-interval: "soon": want a duration`},
		{"skip", "GET /\n[Options]\nskip: yes\n", `tests/bad.hurl:3: skip: "yes": want true or false`},
		{"variable", "GET /\n[Options]\nvariable: a\n", `tests/bad.hurl:3: variable: "a": want name=value`},
		{"request section", "GET /\n[Multiparts]\na: b\n", `tests/bad.hurl:2: section [Multiparts] is not one of a request`},
		{"answer section", "GET /\nHTTP 200\n[Options]\n", `tests/bad.hurl:3: section [Options] is not one of an answer`},
		{"open body", "POST /\n```\nabc\n", "tests/bad.hurl:2: the ``` string is never closed"},
		{"open assert string", "GET /\nHTTP 200\n[Asserts]\nbody == ```\nabc\n", "tests/bad.hurl:4: the ``` string is never closed"},
		{"multiline type", "POST /\n```yaml\na: b\n```\n", "tests/bad.hurl:2: ```yaml: unknown multiline string type"},
		{"bad json", "POST /\n{\n\"a\": \n", `tests/bad.hurl:2: the JSON body never ends`},
		{"bad xml", "POST /\n<a>\n<b>\n", `tests/bad.hurl:2: the XML body never ends`},
		{"two bodies", "POST /\n`a`\n`b`\n", `tests/bad.hurl:3: a second body`},
		{"after the body", "POST /\n`a`\nX-A: b\n", `tests/bad.hurl:3: a line after the body`},
		{"after the answer's body", "GET /\nHTTP 200\n`a`\n[Asserts]\n", "tests/bad.hurl:4: a line after the answer's body"},
		{"unclosed hex", "POST /\nhex,00ff\n", "tests/bad.hurl:2: hex,… has no closing ';'"},
		{"capture", "GET /\nHTTP 200\n[Captures]\nid jsonpath \"$.id\"\n", `tests/bad.hurl:4: want a capture (name: query)`},
		{"capture trailing", "GET /\nHTTP 200\n[Captures]\nid: jsonpath \"$.id\" == 1\n", `tests/bad.hurl:4: unexpected "==" after the capture's query`},
		{"garbage header", "GET /\nthis is not a header\n", `tests/bad.hurl:2: want a header (Name: value), a [Section], a body, or the answer's HTTP line`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("tests/bad.hurl", []byte(c.src))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("Parse(%q) = %v, want an error starting %q", c.src, err, c.want)
			}
		})
	}
}

// Hurl's grammar: names with {{variables}}, brackets and escapes, Name;,
// every request section by both its names, every body form, comments
// after values and sections, and an answer's body as its last assert.
func TestParseReadsHurlsGrammar(t *testing.T) {
	src := "POST {{ingress}}/a # comment\n" +
		"{{key}}: v # comment\n" +
		"X-Id: \\#1\n" +
		"Empty;\n" +
		"[QueryStringParams] # comment\n" +
		"values[1]: 1\n" +
		"values\\u{5b}0\\u{5d}: 0\n" +
		"[FormParams]\n$top: 5\n" +
		"[MultipartFormData]\nf: file,a\\ b.txt; text/plain\n" +
		"[Cookies]\nc: 1\n[BasicAuth]\nbob: secret\n[Options]\nretry: 2\nvariable: key=X-K\n" +
		"hex,00ff;\n" +
		"HTTP/2 201\nX-A: b\n[Captures]\nid: jsonpath \"$.id\" redact\n[Asserts]\n" +
		"body == ```\nx\n```\n" +
		"{\"id\": {{id}}}\n"
	f, err := Parse("tests/g.hurl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e := f.Entries[0]
	want := Entry{Line: 1, Method: "POST", URL: "{{ingress}}/a",
		Headers:   []Field{{2, "{{key}}", "v"}, {3, "X-Id", "#1"}, {4, "Empty", ""}},
		Query:     []Field{{6, "values[1]", "1"}, {7, "values[0]", "0"}},
		Form:      []Field{{9, "$top", "5"}},
		Multipart: []Part{{Field: Field{Line: 11, Name: "f"}, File: "a b.txt", ContentType: "text/plain"}},
		Cookies:   []Field{{13, "c", "1"}},
		BasicAuth: &Field{15, "bob", "secret"},
		Options:   []Field{{17, "retry", "2"}, {18, "variable", "key=X-K"}},
		Body:      &Body{Line: 19, Kind: "bytes", Bytes: []byte{0, 0xff}},
	}
	got := e
	got.Captures, got.Asserts = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("request:\n%+v\nwant\n%+v", got, want)
	}
	if len(e.Captures) != 1 || !e.Captures[0].Redact {
		t.Errorf("captures: %+v", e.Captures)
	}
	var asserts []string
	for _, a := range e.Asserts {
		asserts = append(asserts, strconv.Itoa(a.Line)+" "+a.Query.String()+" "+a.Pred.String())
	}
	wantAsserts := []string{`20 version == "2"`, `20 status == 201`, `21 header "X-A" == "b"`, "25 body == \"x\\n\"", `28 body == ` + showLiteral(bodyRef{Line: 28, Kind: "json", Text: "{\"id\": {{id}}}\n"})}
	if !reflect.DeepEqual(asserts, wantAsserts) {
		t.Errorf("asserts:\n%s\nwant\n%s", strings.Join(asserts, "\n"), strings.Join(wantAsserts, "\n"))
	}
}
