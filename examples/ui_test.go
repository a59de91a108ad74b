package examples_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// uiProject serves examples/echo (an Ingress, a Service and a channel
// topic) and examples/egress (a NetworkPolicy that denies the probe's
// calls but to port 8000) together, and the faults test pod
// (internal/testkit/testpods), whose /bomb traps once memory.grow is refused.
const uiProject = `name: ui
manifests: [../echo/echo.yaml, ../egress/egress.yaml, ../egress/egress-policy.yaml, faults.yaml]
pods:
  - name: echo
    language: c
    source: ../echo/pods/echo
  - name: probe
    language: c
    source: ../egress/pods/probe
  - name: faults
    language: c
    source: pods/faults
`

// faultsPod runs the faults pod on the control plane, whose pod port the
// test calls, with room for two pages.
const faultsPod = `apiVersion: v1
kind: Pod
metadata: {name: faults}
spec:
  nodeName: ` + host.ControlPlaneName + `
  containers:
    - name: faults
      image: wasm://embedded/faults
      resources: {limits: {memory: 128Ki}}
`

// TestUI opens /ui/ in headless Chromium, at 1400×900, on a 2-node
// cluster of the examples and checks that it shows the picture (the echo
// route → its Service → its pod on its node), the nodes, the pods, the
// routes, a request the test then makes through the Ingress (its edges
// light up), a call NetworkPolicy denied with its reason (its edge turns
// red), a channel message, that nothing scrolls sideways, and that the
// console has no errors. The screenshot stays in the test's temporary
// folder; KUBE32_UI_SCREENSHOT=<path> also writes it there (docs/ui.md).
func TestUI(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := filepath.Join(filepath.Dir(copyExamples(t, "echo")), "ui")
	faults, err := os.ReadFile(filepath.Join(testpods.Dir, "faults.c"))
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, dir, map[string]string{"kube32.yaml": uiProject, "faults.yaml": faultsPod, "pods/faults/faults.c": string(faults)})
	build(t, dir)
	c, _ := testserve.Serve(t, dir, "--nodes", "2", "--token", "ui-test-token")

	// The activity stream itself, as the page reads it: a viewer that
	// never reads (the page and the checks below go on regardless), and one
	// that checks what the requests below publish.
	openActivity(t, c, "ui-test-token", false)
	events := openActivity(t, c, "ui-test-token", true)
	next := func() activityEvent {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(time.Minute):
			t.Fatal("no activity event within a minute")
		}
		return activityEvent{}
	}

	// With a token the view lives on the HTTPS port: the plain HTTP one
	// sends the browser there.
	b := openBrowser(t, 1400, 900, trustingCluster(t, c))
	b.navigate(c.APIURL() + abi.UIPath)
	testenv.Eventually(t, "the view opens on the HTTPS port", func() bool {
		return b.eval(`location.href`) == c.APITLSURL()+abi.UIPath
	})
	visible := func(sel string) func() bool {
		return func() bool { return b.eval(`!!document.querySelector(`+quoteJS(sel)+`)`) == "true" }
	}
	// With --token the page asks for it once, then keeps it in a cookie.
	testenv.Eventually(t, "the page asks for the token", func() bool { return b.eval(`!document.querySelector('#login').hidden`) == "true" })
	b.eval(`document.querySelector('#login input').value = 'ui-test-token'; document.querySelector('#login').requestSubmit()`)
	testenv.Eventually(t, "the page shows the cluster", func() bool { return b.eval(`!document.querySelector('#main').hidden`) == "true" })

	testenv.Eventually(t, "both nodes are listed Ready", func() bool {
		return b.eval(`[...document.querySelectorAll('#nodes tr[data-node] td:nth-child(2)')].filter(td => td.textContent === 'True').length`) == "2"
	})
	testenv.Eventually(t, "the pods are Running", func() bool {
		return b.eval(`[...document.querySelectorAll('#pods tr[data-pod]')].filter(tr => tr.textContent.includes('Running')).length`) == "3"
	})

	// The memory bars: red means trouble only. The echo pod, one page of
	// its one-page limit, is healthy; the faults pod is in trouble once
	// its memory.grow was refused and it trapped (OOMKilled).
	memoryBar := func(pod string) (bar struct{ Class, Fill, Plain, Trouble string }) {
		t.Helper()
		// Plain and Trouble are the fills of a bar without and with
		// trouble, read from the page's own style sheet.
		json.Unmarshal([]byte(b.eval(`(() => {
			const bar = document.querySelector('#pods tr[data-pod="default/`+pod+`"] .bar');
			if (!bar) return '{}';
			const fill = (className) => {
				const probe = document.createElement('span');
				probe.className = className;
				probe.innerHTML = '<i></i>';
				document.body.append(probe);
				const color = getComputedStyle(probe.firstChild).backgroundColor;
				probe.remove();
				return color;
			};
			return JSON.stringify({class: bar.className, fill: getComputedStyle(bar.firstChild).backgroundColor,
				plain: fill('bar'), trouble: fill('bar trouble')});
		})()`)), &bar)
		return bar
	}
	testenv.Eventually(t, "the echo pod's memory, one page of one", func() bool {
		return b.eval(`document.querySelector('#pods tr[data-pod="default/echo"] td.memory')?.textContent.trim()`) == "64 KiB / 64 KiB"
	})
	if bar := memoryBar("echo"); bar.Class != "bar" || bar.Fill != bar.Plain || bar.Fill == bar.Trouble {
		t.Errorf("the healthy echo pod's full bar: %+v; want the plain colour, not the trouble one", bar)
	}
	bomb, _ := http.NewRequest(http.MethodGet, c.PodURL()+"/bomb", nil)
	bomb.Header.Set(abi.HeaderPod, "default/faults")
	if r, err := http.DefaultClient.Do(bomb); err != nil || r.StatusCode != http.StatusInternalServerError {
		t.Fatalf("GET /bomb on the faults pod: %v %v, want 500 (a trap)", r, err)
	} else {
		r.Body.Close()
	}
	testenv.Eventually(t, "the faults pod's bar turns red", func() bool {
		bar := memoryBar("faults")
		return bar.Class == "bar trouble" && bar.Fill == bar.Trouble && bar.Fill != bar.Plain
	})
	testenv.Eventually(t, "the /echo and /probe routes lead to their pods", func() bool {
		return b.eval(`document.querySelector('#routes tr[data-route="default/echo /echo Prefix"]')?.textContent.includes('echo')`) == "true" &&
			b.eval(`document.querySelector('#routes tr[data-route="default/egress-probe /probe Prefix"]')?.textContent.includes('egress-probe')`) == "true"
	})

	// The picture: the echo route → the echo Service → the echo pod, in
	// the box of its node, the control plane (echo.yaml's nodeSelector).
	echoRoute, echoSvc, echoPod := "route:default/echo /echo Prefix", "svc:default/echo", "pod:default/echo"
	edge := func(from, to string) string {
		return `document.querySelector('#topology path.edge[data-from=` + quoteJS(from) + `][data-to=` + quoteJS(to) + `]')`
	}
	testenv.Eventually(t, "the picture shows the echo route, Service and pod on its node, joined", func() bool {
		return b.eval(`!!document.querySelector('#topology .box[data-id=`+quoteJS(echoRoute)+`]') && `+
			`!!document.querySelector('#topology .box[data-id=`+quoteJS(echoSvc)+`]') && `+
			`!!document.querySelector('#topology .node-group[data-node=`+quoteJS(host.ControlPlaneName)+`] .box[data-id=`+quoteJS(echoPod)+`]') && `+
			`!!`+edge(echoRoute, echoSvc)+` && !!`+edge(echoSvc, echoPod)) == "true"
	})
	// From here on the page records every edge it lights (class pulse) or
	// turns red (class denied), with the colour it is drawn in then: the
	// classes last seconds, which the checks below must not race. trouble
	// is the page's colour of trouble, its .bad class's.
	b.eval(`(() => {
		const bad = document.body.appendChild(Object.assign(document.createElement('span'), {className: 'bad'}));
		window.trouble = getComputedStyle(bad).color;
		bad.remove();
		window.lit = new Map();
		const look = () => {
			for (const el of document.querySelectorAll('#topology path.edge.pulse, #topology path.edge.denied')) {
				const seen = {from: el.dataset.from, to: el.dataset.to, class: el.getAttribute('class'), stroke: getComputedStyle(el).stroke};
				window.lit.set(JSON.stringify(seen), seen);
			}
		};
		new MutationObserver(look).observe(document.querySelector('#topology'), {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
	})()`)
	type litEdge struct{ From, To, Class, Stroke string }
	lit := func(from, to, class string) (seen []litEdge) {
		t.Helper()
		json.Unmarshal([]byte(b.eval(`JSON.stringify([...window.lit.values()])`)), &seen)
		var match []litEdge
		for _, e := range seen {
			if e.From == from && e.To == to && strings.Contains(" "+e.Class+" ", " "+class+" ") {
				match = append(match, e)
			}
		}
		return match
	}
	trouble := b.eval(`window.trouble`)
	if trouble == "" || trouble == b.eval(`getComputedStyle(`+edge(echoRoute, echoSvc)+`).stroke`) {
		t.Fatalf("the page's trouble colour %q is an edge's plain one", trouble)
	}

	// Now, with the page open: a request through the Ingress, a call the
	// NetworkPolicy denies, a channel message.
	if status, _, _ := fetch(t, http.MethodGet, c.IngressURL()+"/echo/seen-by-the-ui", ""); status != http.StatusOK {
		t.Fatalf("GET /echo/seen-by-the-ui: %d", status)
	}
	if status, _, body := fetch(t, http.MethodPost, c.IngressURL()+"/probe", "http://127.0.0.1:1/"); status != http.StatusOK || !strings.HasPrefix(body, "rc=") {
		t.Fatalf("POST /probe: %d %q", status, body)
	}
	req, _ := http.NewRequest(http.MethodPost, c.APIURL()+abi.ChannelsPath+"/echo.events", strings.NewReader("hello from the UI test"))
	req.Header.Set("Authorization", "Bearer ui-test-token")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusAccepted {
		t.Fatalf("publishing on echo.events: %v %v", r, err)
	} else {
		r.Body.Close()
	}

	var requests, denied, msg []activityEvent
	for len(requests) == 0 || len(denied) == 0 || len(msg) == 0 {
		e := next()
		switch {
		case e.Kind == "request" && e.Path == "/echo/seen-by-the-ui":
			requests = append(requests, e)
		case e.Kind == "call" && e.Denied:
			denied = append(denied, e)
		case e.Kind == "message" && e.Topic == "echo.events":
			msg = append(msg, e)
		}
	}
	if r := requests[0]; r.Status != 200 || r.Pod != "default/echo" || r.Node == "" || r.Route != "default/echo /echo Prefix" || r.Method != "GET" {
		t.Errorf("the request's event: %+v", r)
	}
	if cl := denied[0]; cl.From != "default/egress-probe" || cl.Result != "K32_ERR_PERM" || !strings.Contains(cl.Reason, "NetworkPolicy default/egress-probe") {
		t.Errorf("the denied call's event: %+v", cl)
	}
	if m := msg[0]; m.Preview != "hello from the UI test" || m.Size != 22 || m.From != "api" {
		t.Errorf("the message's event: %+v", m)
	}
	testenv.Eventually(t, "the request appears with the pod that served it", func() bool {
		return b.eval(`document.querySelector('#requests tr[data-request="/echo/seen-by-the-ui"]')?.textContent.includes('default/echo')`) == "true"
	})
	// The request lit its way in the picture, route → Service → pod, in
	// the colour of no trouble.
	for _, hop := range [][2]string{{echoRoute, echoSvc}, {echoSvc, echoPod}} {
		testenv.Eventually(t, "the request lights the edge "+hop[0]+" → "+hop[1], func() bool {
			return len(lit(hop[0], hop[1], "pulse")) > 0 && b.eval(edge(hop[0], hop[1])+`.dataset.pulses >= 1`) == "true"
		})
		for _, e := range lit(hop[0], hop[1], "pulse") {
			if e.Stroke == trouble || strings.Contains(e.Class, "denied") {
				t.Errorf("the request's edge %s → %s is drawn as trouble: %+v", hop[0], hop[1], e)
			}
		}
	}
	// The denied call drew its edge, the probe pod → the host outside it
	// called, red: the page's colour of trouble.
	probePod, outside := "pod:default/egress-probe", "out:127.0.0.1:1"
	testenv.Eventually(t, "the denied call draws its edge red", func() bool {
		for _, e := range lit(probePod, outside, "denied") {
			if e.Stroke == trouble {
				return true
			}
		}
		return false
	})
	if got := b.eval(edge(probePod, outside) + `.dataset.denied`); got != "1" {
		t.Errorf("the denied call's edge counts %q denials, want 1", got)
	}
	// A call to a Service is drawn to the Service, read from its URL as
	// docs/calls.md says: the probe's call to http://echo/ (port 80, which
	// the policy denies) turns the edge probe pod → echo Service red.
	if status, _, body := fetch(t, http.MethodPost, c.IngressURL()+"/probe", "http://echo/"); status != http.StatusOK || !strings.HasPrefix(body, "rc=") {
		t.Fatalf("POST /probe http://echo/: %d %q", status, body)
	}
	testenv.Eventually(t, "the denied call to the echo Service draws its edge red", func() bool {
		for _, e := range lit(probePod, echoSvc, "denied") {
			if e.Stroke == trouble {
				return true
			}
		}
		return false
	})
	var reason string
	for reason == "" {
		if e := next(); e.Kind == "call" && e.Denied && strings.Contains(e.Target, "echo") {
			reason = e.Reason
		}
	}
	testenv.Eventually(t, "the denied call appears with its NetworkPolicy reason", func() bool {
		return b.eval(`[...document.querySelectorAll('#calls tr.denied')].some(tr => tr.textContent.includes('default/egress-probe') && tr.textContent.includes('K32_ERR_PERM') && tr.textContent.includes(`+quoteJS(reason)+`))`) == "true"
	})
	testenv.Eventually(t, "the channel message appears under its topic", func() bool {
		return b.eval(`document.querySelector('#topics tr[data-topic="echo.events"]')?.textContent.includes('hello from the UI test')`) == "true"
	})
	// An open viewer of the echo Ingress's event stream is counted, and
	// counted out when it leaves.
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	sseReq, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.IngressURL()+"/echo/events", nil)
	sse, err := http.DefaultClient.Do(sseReq)
	if err != nil || sse.StatusCode != http.StatusOK {
		t.Fatalf("GET /echo/events: %v %v", sse, err)
	}
	viewers := func(n string) func() bool {
		return func() bool {
			return b.eval(`document.querySelector('#viewers tr[data-stream="default/echo /echo/events"] td:nth-child(3)')?.textContent`) == n
		}
	}
	testenv.Eventually(t, "the SSE viewer is listed", viewers("1"))
	leave()
	sse.Body.Close()
	testenv.Eventually(t, "the SSE viewer is counted out", viewers("0"))

	// At 1400×900, with every table filled, nothing scrolls sideways: not
	// the page, not a section, not a table.
	if w := b.eval(`innerWidth`); w != "1400" {
		t.Fatalf("the window is %s px wide, want 1400", w)
	}
	if over := b.eval(`JSON.stringify([document.documentElement, ...document.querySelectorAll('main section, main table')]
		.filter((el) => el.scrollWidth > el.clientWidth)
		.map((el) => (el.id || el.tagName + ' in ' + el.parentElement.id) + ': ' + el.scrollWidth + ' > ' + el.clientWidth))`); over != "[]" {
		t.Errorf("scrolls sideways at 1400 px: %s", over)
	}

	// The screenshot: a request and a denied call just made, their edges
	// lit and red.
	if status, _, _ := fetch(t, http.MethodGet, c.IngressURL()+"/echo/for-the-screenshot", ""); status != http.StatusOK {
		t.Fatalf("GET /echo/for-the-screenshot: %d", status)
	}
	fetch(t, http.MethodPost, c.IngressURL()+"/probe", "http://127.0.0.1:1/")
	testenv.Eventually(t, "the second denied call reaches the picture", func() bool {
		return b.eval(edge(probePod, outside)+`.dataset.denied`) == "2"
	})
	shot := filepath.Join(t.TempDir(), "ui.png")
	png := b.screenshot()
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
	if out := os.Getenv("KUBE32_UI_SCREENSHOT"); out != "" { // refreshes docs/ui.png (docs/ui.md)
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A click on a pod shows its manifest, Events and log.
	b.eval(`document.querySelector('#pods tr[data-pod="default/echo"]').click()`)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the page's text:\n%s", b.eval(`document.body.innerText`))
		}
	})
	testenv.Eventually(t, "the pod's detail shows its manifest and log", func() bool {
		return b.eval(`document.querySelector('#detail').textContent.includes('"kind": "Pod"') && document.querySelector('#log').textContent.length > 0`) == "true"
	})
	if !visible("#detail h3")() {
		t.Error("the pod's detail has no sections")
	}

	if errs := b.pageErrors(); len(errs) > 0 {
		t.Errorf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
	if n := b.eval(`document.querySelector('#errors').dataset.count`); n != "0" {
		t.Errorf("the page counted %s errors: %s", n, b.eval(`document.querySelector('#errors').textContent`))
	}
}

func quoteJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// activityEvent is one "activity" event of the web view's stream
// (docs/ui.md), with the fields this test reads.
type activityEvent struct {
	Kind    string `json:"kind"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Status  int    `json:"status"`
	Route   string `json:"route"`
	Pod     string `json:"pod"`
	Node    string `json:"node"`
	From    string `json:"from"`
	Target  string `json:"target"`
	Result  string `json:"result"`
	Denied  bool   `json:"denied"`
	Reason  string `json:"reason"`
	Topic   string `json:"topic"`
	Size    int    `json:"size"`
	Preview string `json:"preview"`
}

// openActivity opens the web view's event stream, GET /ui/events on the
// HTTPS API port with token, until the test ends. With read its activity
// events come on the channel; without, nothing of it is ever read.
func openActivity(t *testing.T, c *host.Cluster, token string, read bool) <-chan activityEvent {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(c.APICA())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.APITLSURL()+abi.UIPath+"events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", req.URL, resp.StatusCode)
	}
	if !read {
		return nil
	}
	events := make(chan activityEvent)
	go func() {
		lines := bufio.NewScanner(resp.Body)
		event := ""
		for lines.Scan() {
			line := lines.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "activity":
				var e activityEvent
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e); err != nil {
					t.Errorf("an activity event that is not JSON: %q", line)
					continue
				}
				select {
				case events <- e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return events
}
