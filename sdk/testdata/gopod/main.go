// Command gopod is the test pod of the Go SDK (package k32): it echoes what
// it reads of each request, so a test can check every part arrives. Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o gopod.wasm .
//
// (in a workspace that uses ../../go; see sdk/sdkgo_test.go).
package main

import (
	"io"
	"strconv"
	"strings"
	"time"

	k32 "github.com/kube32/kube32/sdk/go"
)

// lastEvent is the last channel message OnEvent received, for /last-event.
var lastEvent string

func init() {
	k32.OnInit(func() error {
		k32.Log(k32.LevelInfo, "gopod starting")
		return nil
	})
	k32.OnEvent(func(topic string, data []byte) {
		lastEvent = topic + ":" + string(data)
	})
	k32.HandleFunc(serve)
}

func serve(w k32.ResponseWriter, r *k32.Request) {
	switch r.Path {
	case "/panic":
		panic("gopod: asked to panic")
	case "/redirect":
		w.Header().Set("Location", "/elsewhere")
		w.WriteHeader(302)
		return
	case "/headers-only":
		w.Header().Set("X-Only", "yes") // no WriteHeader, no Write
		return
	case "/call":
		call(w, r)
		return
	case "/publish":
		body, _ := io.ReadAll(r.Body)
		if err := k32.Publish("news", body); err != nil {
			k32.Error(w, "publish: "+err.Error(), 502)
		}
		return
	case "/last-event":
		io.WriteString(w, lastEvent)
		return
	case "/asset", "/asset-missing":
		name := "index.html"
		if r.Path == "/asset-missing" {
			name = "missing.html"
		}
		w.Header().Set("X-Asset", "1")
		if err := k32.ServeAsset(w, name, 0); err != nil {
			k32.Error(w, "asset: "+err.Error(), 404)
		}
		return
	case "/misc":
		misc(w)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		k32.Error(w, "reading body: "+err.Error(), 500)
		return
	}
	_, missing := k32.LookupEnv("GOPOD_NOT_SET")
	var b strings.Builder
	b.WriteString("method=" + r.Method + "\n")
	b.WriteString("path=" + r.Path + "\n")
	b.WriteString("query=" + r.RawQuery + "\n")
	b.WriteString("x-test=" + r.Header.Get("x-test") + "\n")
	b.WriteString("x-multi=" + strings.Join(r.Header.Values("X-Multi"), "|") + "\n")
	b.WriteString("greeting=" + k32.Getenv("GREETING") + "\n")
	b.WriteString("long=" + k32.Getenv("LONG") + "\n")
	if missing {
		b.WriteString("missing=found\n")
	} else {
		b.WriteString("missing=absent\n")
	}
	b.WriteString("body=" + string(body) + "\n")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Pod", "gopod")
	w.Header().Add("X-Reply", "one")
	w.Header().Add("X-Reply", "two")
	w.WriteHeader(201)
	io.WriteString(w, b.String())
}

// call makes the k32_http_call that the query asks for and reports what
// came back: "grow" allows a retry, "small" a 4-byte buffer without one.
func call(w k32.ResponseWriter, r *k32.Request) {
	opts := []k32.CallOption{k32.WithTimeout(2 * time.Second)}
	switch r.RawQuery {
	case "small":
		opts = append(opts, k32.WithBuffer(4))
	case "grow":
		opts = append(opts, k32.WithBuffer(4), k32.WithGrow(1<<20))
	}
	resp, err := k32.Call("POST", "http://echo/x", k32.Header{"X-Req": {"r"}}, []byte("ping"), opts...)
	var b strings.Builder
	if err != nil {
		b.WriteString("err=" + err.Error() + "\n")
	}
	if resp != nil {
		b.WriteString("status=" + strconv.Itoa(resp.Status) + "\n")
		b.WriteString("x-answer=" + resp.Header("x-answer") + "\n")
		b.WriteString("body=" + string(resp.Body) + "\n")
	}
	io.WriteString(w, b.String())
}

// misc checks the clock, sleep and random helpers.
func misc(w k32.ResponseWriter) {
	buf := make([]byte, 16)
	var b strings.Builder
	b.WriteString("year=" + strconv.Itoa(k32.Now().Year()) + "\n")
	if err := k32.Sleep(time.Millisecond); err != nil {
		b.WriteString("sleep=" + err.Error() + "\n")
	} else {
		b.WriteString("sleep=ok\n")
	}
	if err := k32.Random(buf); err != nil || string(buf) == string(make([]byte, 16)) {
		b.WriteString("random=bad\n")
	} else {
		b.WriteString("random=ok\n")
	}
	io.WriteString(w, b.String())
}

func main() {}
