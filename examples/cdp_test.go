package examples_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/gorilla/websocket"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// browser is one page of headless Chromium driven over the DevTools
// protocol, for tests that must act while the page runs (dumpDOM only sees
// the page once it settled). It records the page's console errors,
// uncaught exceptions and failed loads.
type browser struct {
	t    *testing.T
	conn *websocket.Conn

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpReply
	errors  []string
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

var devtoolsURL = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// openBrowser starts Chromium (testenv.Chromium: a fresh profile, nothing
// beyond loopback) with remote debugging and the extra flags, and attaches
// to its page.
func openBrowser(t *testing.T, width, height int, extra ...string) *browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	args := append([]string{"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		fmt.Sprintf("--window-size=%d,%d", width, height)}, extra...)
	cmd, _ := testenv.Chromium(ctx, t, append(args, "about:blank")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	var wsURL string
	var output []string
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		output = append(output, lines.Text())
		if m := devtoolsURL.FindStringSubmatch(lines.Text()); m != nil {
			wsURL = m[1]
			break
		}
	}
	if wsURL == "" {
		t.Fatalf("chromium printed no DevTools address:\n%s", strings.Join(output, "\n"))
	}
	go func() {
		for lines.Scan() { // drain, so that Chromium never blocks on stderr
		}
	}()
	// The page target of the browser's DevTools endpoint.
	host := strings.SplitN(strings.TrimPrefix(wsURL, "ws://"), "/", 2)[0]
	var targets []struct{ Type, WebSocketDebuggerURL string }
	testenv.EventuallyNil(t, "Chromium lists its page", func() error {
		r, err := http.Get("http://" + host + "/json/list")
		if err != nil {
			return err
		}
		defer r.Body.Close()
		targets = nil
		if err := json.NewDecoder(r.Body).Decode(&targets); err != nil {
			return err
		}
		for _, tg := range targets {
			if tg.Type == "page" {
				wsURL = tg.WebSocketDebuggerURL
				return nil
			}
		}
		return fmt.Errorf("no page among %d targets", len(targets))
	})
	conn, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	if err != nil {
		t.Fatalf("DevTools %s: %v", wsURL, err)
	}
	b := &browser{t: t, conn: conn, waiting: map[int]chan cdpReply{}}
	t.Cleanup(func() { conn.Close() })
	go b.read()
	b.call("Runtime.enable", nil)
	b.call("Log.enable", nil)
	b.call("Page.enable", nil)
	return b
}

// read dispatches the answers to their calls and records the errors the
// page reports.
func (b *browser) read() {
	for {
		var msg struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			cdpReply
		}
		if err := b.conn.ReadJSON(&msg); err != nil {
			return
		}
		b.mu.Lock()
		if c, ok := b.waiting[msg.ID]; ok && msg.ID != 0 {
			delete(b.waiting, msg.ID)
			c <- msg.cdpReply
		}
		if e := pageError(msg.Method, msg.Params); e != "" {
			b.errors = append(b.errors, e)
		}
		b.mu.Unlock()
	}
}

// pageError is the error a DevTools event reports, or "".
func pageError(method string, params json.RawMessage) string {
	switch method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string
			Args []struct {
				Value       any
				Description string
			}
		}
		json.Unmarshal(params, &p)
		if p.Type == "error" || p.Type == "assert" {
			return fmt.Sprintf("console.%s: %v", p.Type, p.Args)
		}
	case "Runtime.exceptionThrown":
		return "uncaught: " + string(params)
	case "Log.entryAdded":
		var p struct {
			Entry struct{ Level, Text, URL string }
		}
		json.Unmarshal(params, &p)
		if p.Entry.Level == "error" {
			return p.Entry.Text + " " + p.Entry.URL
		}
	}
	return ""
}

// call sends one DevTools command and returns its result.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	reply := make(chan cdpReply, 1)
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	b.waiting[id] = reply
	err := b.conn.WriteJSON(map[string]any{"id": id, "method": method, "params": params})
	b.mu.Unlock()
	if err != nil {
		b.t.Fatalf("DevTools %s: %v", method, err)
	}
	select {
	case r := <-reply:
		if r.Error != nil {
			b.t.Fatalf("DevTools %s: %s", method, r.Error.Message)
		}
		return r.Result
	case <-time.After(time.Minute):
		b.t.Fatalf("DevTools %s: no answer", method)
		return nil
	}
}

// navigate loads url in the page.
func (b *browser) navigate(url string) {
	b.call("Page.navigate", map[string]any{"url": url})
}

// eval evaluates a JavaScript expression in the page and returns its value
// as a string ("" for undefined or null).
func (b *browser) eval(expr string) string {
	b.t.Helper()
	res := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	var r struct {
		Result struct{ Value any }
	}
	json.Unmarshal(res, &r)
	if r.Result.Value == nil {
		return ""
	}
	return fmt.Sprint(r.Result.Value)
}

// screenshot returns a PNG of the page's viewport.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	var r struct{ Data string }
	json.Unmarshal(b.call("Page.captureScreenshot", map[string]any{"format": "png"}), &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	return png
}

// pageErrors returns what the page reported as errors so far.
func (b *browser) pageErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// trustingCluster is the Chromium flag that trusts the certificate of the
// cluster's HTTPS API port, checked against its CA first: the web view
// with a token lives there (docs/ui.md).
func trustingCluster(t *testing.T, c *host.Cluster) string {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(c.APICA())
	conn, err := tls.Dial("tcp", strings.TrimPrefix(c.APITLSURL(), "https://"), &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("the HTTPS API port: %v", err)
	}
	defer conn.Close()
	spki := sha256.Sum256(conn.ConnectionState().PeerCertificates[0].RawSubjectPublicKeyInfo)
	return "--ignore-certificate-errors-spki-list=" + base64.StdEncoding.EncodeToString(spki[:])
}

// cookies returns the cookies the browser would send to url, by name.
func (b *browser) cookies(url string) map[string]string {
	b.t.Helper()
	var r struct {
		Cookies []struct{ Name, Value string }
	}
	json.Unmarshal(b.call("Network.getCookies", map[string]any{"urls": []string{url}}), &r)
	got := map[string]string{}
	for _, c := range r.Cookies {
		got[c.Name] = c.Value
	}
	return got
}
