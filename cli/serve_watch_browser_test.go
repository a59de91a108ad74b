package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// A page of the static-site template, open in headless Chromium, reloads
// itself when its bundle is edited under serve --watch: the test loads it
// once and never navigates it again, yet the page ends up showing the
// edited file in a new document (a marker set on the old one is gone).
func TestServeWatchReloadsPageInChromium(t *testing.T) {
	testenv.Tool(t, "chromium") // before the project is built
	dir := newSite(t)
	c, _ := serve(t, dir, "--watch")

	page := openDevTools(t)
	page.call(t, "Network.enable", nil)
	page.call(t, "Page.navigate", map[string]any{"url": c.IngressURL() + "/"})
	// The page's EventSource is open once its response arrived. The server
	// subscribes it right after sending the headers, well before a reload
	// can fire: that comes a debounce interval after the edit below.
	stream := c.IngressURL() + "/kube32/reload"
	page.waitEvent(t, "the page's reload stream to open", func(method string, params json.RawMessage) bool {
		var p struct {
			Response struct {
				URL    string `json:"url"`
				Status int    `json:"status"`
			} `json:"response"`
		}
		json.Unmarshal(params, &p)
		return method == "Network.responseReceived" && p.Response.URL == stream && p.Response.Status == 200
	})
	if got := page.eval(t, `window.k32Old = true; document.querySelector("h1").textContent`); got != "site" {
		t.Fatalf("the page's heading is %q, want the template's %q", got, "site")
	}

	index := filepath.Join(dir, "site", "index.html")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "</main>", `<p id="edited">edited in place</p></main>`, 1)
	if edited == string(data) {
		t.Fatal("the template's index.html has no </main>: this test's edit no longer applies")
	}
	if err := os.WriteFile(index, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	var shown string
	testenv.EventuallyNil(t, "the reloaded page in Chromium", func() error {
		var err error
		shown, err = page.evalErr(`(window.k32Old ? "old document: " : "new document: ") +
			(document.getElementById("edited")?.textContent ?? "no edit")`)
		if err == nil && shown != "new document: edited in place" {
			err = fmt.Errorf("the page shows %q", shown)
		}
		return err
	})
}

// devTools is a minimal client of Chromium's DevTools protocol on one page.
type devTools struct {
	ws     *websocket.Conn
	nextID int
	// keep, when set, keeps every event read in events, for the tests
	// that look through them afterwards.
	keep   bool
	events []message
}

// openDevTools starts headless Chromium on about:blank with remote
// debugging on a free loopback port and the flags args, until the test
// ends, and connects to its page.
func openDevTools(t *testing.T, args ...string) *devTools {
	t.Helper()
	cmd, profile := testenv.Chromium(context.Background(), t, append([]string{"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--remote-allow-origins=http://127.0.0.1"}, append(args, "about:blank")...)...)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", stderr)
		}
	})

	// Chromium writes the port it picked into the profile.
	var port string
	testenv.EventuallyNil(t, "Chromium's DevTools port", func() error {
		data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if err != nil {
			return err
		}
		port, _, _ = strings.Cut(string(data), "\n")
		if port == "" {
			return fmt.Errorf("DevToolsActivePort is empty")
		}
		return nil
	})
	var wsURL string
	testenv.EventuallyNil(t, "Chromium's page target", func() error {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var targets []struct{ Type, WebSocketDebuggerURL string }
		if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
			return err
		}
		for _, target := range targets {
			if target.Type == "page" && target.WebSocketDebuggerURL != "" {
				wsURL = target.WebSocketDebuggerURL
				return nil
			}
		}
		return fmt.Errorf("no page among %d targets", len(targets))
	})
	ws, err := websocket.Dial(wsURL, "", "http://127.0.0.1")
	if err != nil {
		t.Fatalf("DevTools websocket %s: %v", wsURL, err)
	}
	t.Cleanup(func() { ws.Close() })
	return &devTools{ws: ws}
}

// message is a DevTools frame: a reply (ID set) or an event (Method set).
type message struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// readBound keeps a wedged browser from hanging the test; a healthy one
// answers in milliseconds.
const readBound = time.Minute

// send calls method and returns its reply's result, skipping the events
// that arrive meanwhile.
func (d *devTools) send(method string, params any) (json.RawMessage, error) {
	d.nextID++
	id := d.nextID
	if err := websocket.JSON.Send(d.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		m, err := d.read()
		if err != nil {
			return nil, err
		}
		if m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

func (d *devTools) read() (message, error) {
	var m message
	d.ws.SetReadDeadline(time.Now().Add(readBound))
	err := websocket.JSON.Receive(d.ws, &m)
	if err == nil && d.keep && m.Method != "" {
		d.events = append(d.events, m)
	}
	return m, err
}

func (d *devTools) call(t *testing.T, method string, params any) {
	t.Helper()
	if _, err := d.send(method, params); err != nil {
		t.Fatal(err)
	}
}

// waitEvent reads events until one satisfies match.
func (d *devTools) waitEvent(t *testing.T, what string, match func(method string, params json.RawMessage) bool) {
	t.Helper()
	for {
		m, err := d.read()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if m.Method != "" && match(m.Method, m.Params) {
			return
		}
	}
}

// evalErr evaluates a JavaScript expression of string value in the page.
func (d *devTools) evalErr(expr string) (string, error) {
	return d.evaluate(expr, false)
}

// evaluate evaluates expr in the page, awaiting its value first when it is
// a promise (await), and returns the string it comes to.
func (d *devTools) evaluate(expr string, await bool) (string, error) {
	result, err := d.send("Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": await, "returnByValue": true})
	if err != nil {
		return "", err
	}
	var r struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
	if r.ExceptionDetails != nil {
		return "", fmt.Errorf("%s: %s", expr, r.ExceptionDetails.Text)
	}
	s, ok := r.Result.Value.(string)
	if !ok {
		return "", fmt.Errorf("%s = %v, not a string", expr, r.Result.Value)
	}
	return s, nil
}

func (d *devTools) eval(t *testing.T, expr string) string {
	t.Helper()
	s, err := d.evalErr(expr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
