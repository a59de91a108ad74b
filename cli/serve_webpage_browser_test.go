package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// attackerPage is a page of another site (another origin: a loopback
// server on another port) that tries serve's API as the page of issue 29
// did: a Pod's bytes POSTed with mode no-cors (so with no Content-Type and
// no preflight), a channel message as text/plain, a cross-origin read, and
// a write with a JSON Content-Type (which needs a preflight). attack
// resolves to what the page itself could learn of each.
const attackerPage = `<!doctype html><title>another site</title><script>
window.attack = async (api) => {
  const pod = {apiVersion: "v1", kind: "Pod", metadata: {name: "from-a-page"},
    spec: {containers: [{name: "c", image: "wasm://embedded/echo"}]}};
  const out = {};
  const note = async (name, p) => {
    try { const r = await p; out[name] = r.type + " " + r.status; } catch (e) { out[name] = "blocked: " + e.name; }
  };
  await note("noCorsPod", fetch(api + "/api/v1/namespaces/default/pods",
    {method: "POST", mode: "no-cors", body: new TextEncoder().encode(JSON.stringify(pod))}));
  await note("noCorsChannel", fetch(api + "` + abi.ChannelsPath + `/page.topic",
    {method: "POST", mode: "no-cors", body: "from a page"}));
  await note("corsRead", fetch(api + "/api/v1/namespaces/default/pods"));
  pod.metadata.name = "from-a-page-json";
  await note("corsJSONWrite", fetch(api + "/api/v1/namespaces/default/pods",
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(pod)}));
  return JSON.stringify(out);
};
</script>`

// TestPageOfAnotherSiteCannotUseServesAPI is issue 29 in headless
// Chromium against `kube32 serve` without a token (docs/serve.md, "Web
// pages"): a page served from another origin runs the issue's fetch, a
// Pod's bytes POSTed with mode no-cors, which the browser sends without
// Content-Type; serve answers it 415 (as Chromium's own network log shows:
// the page sees an opaque answer) and no Pod is created; its text/plain
// channel message is answered 415 and published nowhere; the page can
// read nothing (no CORS grant), and a write with a JSON Content-Type never
// leaves the browser (its preflight gets no grant). A page reaching serve
// under a name of its own (DNS rebinding: evil.example resolved to
// 127.0.0.1) is refused 403, naming --accept-hosts.
func TestPageOfAnotherSiteCannotUseServesAPI(t *testing.T) {
	testenv.Tool(t, "chromium") // before serve starts
	t.Chdir(t.TempDir())
	c, _ := serve(t) // the demo, without a token
	published := watchTopic(t, c.APIURL(), "page.topic")

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, attackerPage)
	}))
	defer site.Close()
	api := c.APIURL()
	_, apiPort, _ := net.SplitHostPort(strings.TrimPrefix(api, "http://"))

	page := openDevTools(t, "--host-resolver-rules=MAP evil.example 127.0.0.1")
	page.keep = true
	page.call(t, "Network.enable", nil)
	page.call(t, "Page.navigate", map[string]any{"url": site.URL + "/"})
	if status := page.status(t, page.requests(t, http.MethodGet, site.URL+"/", 1)[0]); status != http.StatusOK {
		t.Fatalf("the other site's page: %d", status)
	}

	result, err := page.evalAwait(fmt.Sprintf("attack(%q)", api))
	if err != nil {
		t.Fatal(err)
	}
	var seen map[string]string
	if err := json.Unmarshal([]byte(result), &seen); err != nil {
		t.Fatalf("the page's results %q: %v", result, err)
	}
	// What the page learns: opaque answers to its no-cors writes, nothing
	// of the rest.
	want := map[string]string{"noCorsPod": "opaque 0", "noCorsChannel": "opaque 0", "corsRead": "blocked: TypeError", "corsJSONWrite": "blocked: TypeError"}
	for name, w := range want {
		if seen[name] != w {
			t.Errorf("the page's %s: %q, want %q", name, seen[name], w)
		}
	}

	// What Chromium sent and serve answered, in Chromium's network log:
	// of the two POSTs of a Pod, only the no-cors one went on the wire,
	// with no Content-Type, and was refused 415 (the JSON one waited on
	// its preflight, which got no grant); the channel message, as
	// text/plain, was refused 415.
	pods := api + "/api/v1/namespaces/default/pods"
	var onWire []sentRequest
	for _, r := range page.requests(t, http.MethodPost, pods, 2) {
		if r.onWire() {
			onWire = append(onWire, r)
		}
	}
	if len(onWire) != 1 {
		t.Fatalf("Chromium sent %d POSTs to %s, want the no-cors one only\n%s", len(onWire), pods, page.networkLog())
	}
	post := onWire[0]
	if ct, origin := post.header("Content-Type"), post.header("Origin"); ct != "" || origin != site.URL {
		t.Errorf("the no-cors POST went with Content-Type %q and Origin %q, want none and %s: not the issue's request", ct, origin, site.URL)
	}
	if status := page.status(t, post); status != http.StatusUnsupportedMediaType {
		t.Errorf("serve answered the page's Pod %d, want 415", status)
	}
	message := page.requests(t, http.MethodPost, api+abi.ChannelsPath+"/page.topic", 1)[0]
	if ct := message.header("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("the channel message went with Content-Type %q, want text/plain", ct)
	}
	if status := page.status(t, message); status != http.StatusUnsupportedMediaType {
		t.Errorf("serve answered the page's channel message %d, want 415", status)
	}
	for _, name := range []string{"from-a-page", "from-a-page-json"} {
		if _, ok := c.Get(host.Key{Kind: "Pod", Namespace: "default", Name: name}); ok {
			t.Errorf("the page created the Pod %s", name)
		}
	}
	if ms := published(); len(ms) > 0 {
		t.Errorf("the page's channel message was published: %v", ms)
	}

	// DNS rebinding: the page's own name now leads to serve's port.
	rebound := "http://evil.example:" + apiPort + "/api/v1/namespaces/default/pods"
	page.call(t, "Page.navigate", map[string]any{"url": rebound})
	if status := page.status(t, page.requests(t, http.MethodGet, rebound, 1)[0]); status != http.StatusForbidden {
		t.Errorf("GET %s in Chromium: %d, want 403", rebound, status)
	}
	testenv.EventuallyNil(t, "the refusal shown in Chromium", func() error {
		text, err := page.evalErr(`document.body ? document.body.innerText : ""`)
		if err == nil && (!strings.Contains(text, `Host \"evil.example:`+apiPort+`\"`) || !strings.Contains(text, "--accept-hosts")) {
			err = fmt.Errorf("the page shows %.300q", text)
		}
		return err
	})
}

// sentRequest is a request in Chromium's network log, with the headers it
// went on the wire with: none when it never left the browser (a write
// whose preflight got no CORS grant).
type sentRequest struct {
	id      string
	headers map[string]string
}

func (r sentRequest) onWire() bool { return r.headers != nil }

func (r sentRequest) header(name string) string {
	for k, v := range r.headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// requests returns the requests of method to url in the page's network log
// (keep), reading events until there are at least n of them and each has
// finished or failed.
func (d *devTools) requests(t *testing.T, method, url string, n int) []sentRequest {
	t.Helper()
	for {
		var found []sentRequest
		extra := map[string]map[string]string{}
		settled := map[string]bool{}
		for _, m := range d.events {
			var p struct {
				RequestID string `json:"requestId"`
				Request   struct {
					Method, URL string
				} `json:"request"`
				Headers map[string]string `json:"headers"`
			}
			json.Unmarshal(m.Params, &p)
			switch m.Method {
			case "Network.requestWillBeSent":
				if p.Request.Method == method && p.Request.URL == url {
					found = append(found, sentRequest{id: p.RequestID})
				}
			case "Network.requestWillBeSentExtraInfo":
				extra[p.RequestID] = p.Headers
			case "Network.loadingFinished", "Network.loadingFailed":
				settled[p.RequestID] = true
			}
		}
		complete := len(found) >= n
		for i := range found {
			found[i].headers = extra[found[i].id]
			complete = complete && settled[found[i].id]
		}
		if complete {
			return found
		}
		if _, err := d.read(); err != nil {
			t.Fatalf("waiting for %d %s %s in Chromium's network log: %v\n%s", n, method, url, err, d.networkLog())
		}
	}
}

// status returns the status of the answer to r in the page's network log
// (keep), reading events until it is there; 0 when the request failed.
func (d *devTools) status(t *testing.T, r sentRequest) int {
	t.Helper()
	for {
		for _, m := range d.events {
			var p struct {
				RequestID string `json:"requestId"`
				Response  struct {
					Status int `json:"status"`
				} `json:"response"`
			}
			json.Unmarshal(m.Params, &p)
			if p.RequestID != r.id {
				continue
			}
			switch m.Method {
			case "Network.responseReceived":
				return p.Response.Status
			case "Network.loadingFailed":
				return 0
			}
		}
		if _, err := d.read(); err != nil {
			t.Fatalf("waiting for the answer to request %s in Chromium's network log: %v", r.id, err)
		}
	}
}

// evalAwait evaluates a JavaScript expression whose value is a promise of
// a string and returns that string.
func (d *devTools) evalAwait(expr string) (string, error) {
	return d.evaluate(expr, true)
}

// networkLog is the page's network events (keep), one a line, for a
// failing test's message.
func (d *devTools) networkLog() string {
	var b strings.Builder
	for _, m := range d.events {
		if strings.HasPrefix(m.Method, "Network.") {
			fmt.Fprintf(&b, "%s %.400s\n", m.Method, m.Params)
		}
	}
	return b.String()
}

// watchTopic follows the channels' watch stream of the API at api, as a
// worker does (docs/channels.md), until the test ends; what it returns
// lists the messages of topic seen so far.
func watchTopic(t *testing.T, api, topic string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, api+abi.ChannelsPath+"?watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET %s: %d", req.URL, resp.StatusCode)
	}
	var mu sync.Mutex
	var seen []string
	go func() {
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			var m struct {
				Topic, From string
				Data        []byte
			}
			if json.Unmarshal(lines.Bytes(), &m) == nil && m.Topic == topic {
				mu.Lock()
				seen = append(seen, fmt.Sprintf("%q from %s", m.Data, m.From))
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}
