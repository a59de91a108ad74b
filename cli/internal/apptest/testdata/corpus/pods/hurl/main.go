// Command hurl is the pod of kube32 test's Hurl corpus: each route answers
// what one construct of tests/*.hurl asserts on.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	k32 "github.com/kube32/kube32/sdk/go"
)

func init() { k32.HandleFunc(serve) }

// calls counts GET /hurl/count, for [Options] retry.
var calls int

func serve(w k32.ResponseWriter, r *k32.Request) {
	body, _ := io.ReadAll(r.Body)
	h := w.Header()
	switch strings.TrimPrefix(r.Path, "/hurl") {
	case "/echo":
		// The request as received: method, path, query, headers, body.
		headers := map[string][]string{}
		for k, v := range r.Header {
			headers[k] = v
		}
		reply(w, 200, map[string]any{
			"method": r.Method, "path": r.Path, "query": r.RawQuery, "headers": headers,
			"body": string(body), "body64": base64.StdEncoding.EncodeToString(body),
			"contentType": r.Header.Get("Content-Type"), "cookie": r.Header.Get("Cookie"),
		})
	case "/form":
		// A form's fields, in order, decoded.
		var fields []string
		for _, pair := range strings.Split(string(body), "&") {
			k, v, _ := strings.Cut(pair, "=")
			k, _ = url.QueryUnescape(k)
			v, _ = url.QueryUnescape(v)
			fields = append(fields, k+"="+v)
		}
		reply(w, 200, map[string]any{"fields": fields, "contentType": r.Header.Get("Content-Type")})
	case "/json":
		h.Set("Content-Type", "application/json")
		w.WriteHeader(200)
		io.WriteString(w, `{"count": 5, "float": 1.5, "one": 1.0, "big": 1000000000000000000000, "ok": true, "none": null,
"name": "Bob says \"Hello\"", "tags": ["test", "prod"], "empty": [], "object": {}, "date": "2024-03-20T11:23:56.773+02:00",
"uuid": "01cc0f54-8885-4a1d-9121-ae5d316a33c5", "ip": "192.168.2.1", "ip6": "::1", "id": "123", "pi": "3.14",
"list": [1, 2, 3], "url": "https://example.org/?x=a%20b", "file": "0YjQtdC70LvRiw==", "csv": "a, b, c",
"html": "a &gt; b", "json": "{\"message\": \"Hello\"}", "expires": "Wed, 21 Oct 2015 07:28:00 GMT",
"store": {"book": [{"title": "Moby Dick", "price": 8.99, "isbn": "0-553-21311-3"}, {"title": "Sword of Honour", "price": 12.99},
{"title": "The Lord of the Rings", "price": 22.99, "isbn": "0-395-19395-8"}], "bicycle": {"price": 19.95}}}`)
	case "/headers":
		// A header of several values, and cookies with attributes.
		for _, f := range []string{"Banana", "Lemon", "Grape"} {
			h.Add("X-Fruit", f)
		}
		h.Add("Set-Cookie", "session=abc123; Path=/hurl; HttpOnly; Max-Age=3600; SameSite=Strict")
		h.Add("Set-Cookie", "theme=dark; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(200)
		io.WriteString(w, "Hello World!")
	case "/cookies":
		// The cookies the request carries, sorted.
		var names []string
		for _, c := range strings.Split(r.Header.Get("Cookie"), ";") {
			if c = strings.TrimSpace(c); c != "" {
				names = append(names, c)
			}
		}
		sort.Strings(names)
		h.Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, strings.Join(names, "; "))
	case "/text":
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(200)
		io.WriteString(w, "Hello World!")
	case "/lines":
		h.Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, "line1\nline2\nline3\n")
	case "/bytes":
		h.Set("Content-Type", "application/octet-stream")
		w.WriteHeader(200)
		w.Write([]byte{1, 2, 3})
	case "/gzip":
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		io.WriteString(z, "Hello World!")
		z.Close()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Encoding", "gzip")
		w.WriteHeader(200)
		w.Write(b.Bytes())
	case "/latin1":
		// "café" in ISO-8859-1, as its Content-Type says.
		h.Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.WriteHeader(200)
		w.Write([]byte{'c', 'a', 'f', 0xe9})
	case "/count":
		calls++
		h.Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, strconv.Itoa(calls))
	case "/redirect/3", "/redirect/2", "/redirect/1":
		n, _ := strconv.Atoi(strings.TrimPrefix(r.Path, "/hurl/redirect/"))
		next := "/hurl/redirect/" + strconv.Itoa(n-1)
		if n == 1 {
			next = "/hurl/redirected"
		}
		h.Set("Location", next)
		w.WriteHeader(302)
	case "/redirected":
		h.Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, "Redirected")
	default:
		reply(w, 404, map[string]string{"error": "no such path", "path": r.Path})
	}
}

func reply(w k32.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func main() {}
