package cluster

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testhttp"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// putUplink sends PUT abi.UplinkPath with body and returns the status and
// answer.
func putUplink(t *testing.T, c *Cluster, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, c.APIURL()+abi.UplinkPath, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// outsideHost serves "hello" on ip, a host outside the cluster.
func outsideHost(t *testing.T, ip string) string {
	t.Helper()
	srv := testhttp.Serve(t, ip, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") }))
	return srv.Listener.Addr().String()
}

// TestUplinkDownAndUp checks docs/nodes.md, "The uplink", under serve:
// the control plane's pods and the workers' reach hosts outside while the
// uplink is up, fail as on the boards while it is down (the worker's
// packets dropped: K32_ERR_TIMEOUT; the control plane without a route:
// K32_ERR_HOSTUNREACH, https:// from a worker too), and reach them again
// once it is up; each change is logged once, the start up not at all.
func TestUplinkDownAndUp(t *testing.T) {
	host := outsideHost(t, "127.0.0.70")
	logs := &lineLog{}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), Nodes: 2, Token: testToken,
		Objects: []manifest.Object{relay("a", "a", ControlPlaneName), relay("b", "b", w1)},
		Logf:    logs.Logf}, "a", "b")
	podURL := map[string]string{"a": c.PodURL(), "b": c.Workers[0].PodURL()}
	callFrom := func(p, url string) string {
		return relayVia(t, podURL[p], p, "call GET "+url+" 500 64\n")
	}
	upLines := func() int { return strings.Count(logs.String(), "[NET] uplink up: NAT from the cluster AP on, DNS ") }
	downLines := func() int { return strings.Count(logs.String(), "[NET] uplink down: NAT from the cluster AP off") }
	reachable := func(when string) {
		t.Helper()
		for _, p := range []string{"a", "b"} {
			if out := callFrom(p, "http://"+host+"/"); !strings.Contains(out, "call rc=200 status=200 ") || !strings.Contains(out, "hello") {
				t.Fatalf("%s, pod %s: %s", when, p, out)
			}
		}
	}

	reachable("uplink up at start")
	if upLines() != 0 || downLines() != 0 {
		t.Fatalf("at start, want no [NET] uplink line (the default tells nothing); log:\n%s", logs)
	}

	if status, _ := putUplink(t, c, "", `{"up":false}`); status != http.StatusUnauthorized {
		t.Errorf("PUT without the token: %d, want 401", status)
	}
	if status, answer := putUplink(t, c, testToken, `{"down":true}`); status != http.StatusBadRequest {
		t.Errorf("PUT of a bad body: %d %s, want 400", status, answer)
	}
	if status, answer := putUplink(t, c, testToken, `{"up":false}`); status != http.StatusOK || answer != `{"up":false}` {
		t.Fatalf("PUT down: %d %s", status, answer)
	}
	putUplink(t, c, testToken, `{"up":false}`) // no change: no line
	if upLines() != 0 || downLines() != 1 || c.UplinkUp() {
		t.Fatalf("after down, down again: want one [NET] uplink down line; log:\n%s", logs)
	}
	testpods.Contains(t, callFrom("b", "http://"+host+"/"), testpods.CallRC(abi.ErrTimeout))
	testpods.Contains(t, callFrom("a", "http://"+host+"/"), testpods.CallRC(abi.ErrHostUnreach))
	testpods.Contains(t, callFrom("b", "https://127.0.0.71/"), testpods.CallRC(abi.ErrHostUnreach))

	c.SetUplink(true)
	reachable("uplink up again")
	if !strings.Contains(logs.String(), " offered (internal RAM 0 bytes, PSRAM 16384 bytes)") || upLines() != 1 || downLines() != 1 {
		t.Fatalf("after up: want one [NET] uplink up line; log:\n%s", logs)
	}
}

// TestUplinkRelayServesOnlyNodes: without a token, the relay serves only
// the InternalIPs of Nodes, as the egress gateway does.
func TestUplinkRelayServesOnlyNodes(t *testing.T) {
	host := outsideHost(t, "127.0.0.72")
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay"))})
	connect := func(from string) string {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		conn, err := d.Dial("tcp4", strings.TrimPrefix(c.APIURL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
		resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Status + " " + resp.Header.Get(abi.HeaderEgressResult)
	}
	if got := connect("127.0.0.1"); !strings.HasPrefix(got, "200 ") {
		t.Errorf("CONNECT from the control plane's InternalIP: %s, want 200", got)
	}
	if got, want := connect("127.0.0.73"), "403 Forbidden "+fmt.Sprint(int(abi.ErrPerm)); got != want {
		t.Errorf("CONNECT from an address of no Node: %s, want %s", got, want)
	}
}

// TestUplinkStartsDown: serve's --uplink down.
func TestUplinkStartsDown(t *testing.T) {
	host := outsideHost(t, "127.0.0.74")
	logs := &lineLog{}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), UplinkDown: true,
		Objects: []manifest.Object{relay("a", "a", ControlPlaneName)},
		Logf:    logs.Logf}, "a")
	testpods.Contains(t, relayVia(t, c.PodURL(), "a", "call GET http://"+host+"/ 500 64\n"), testpods.CallRC(abi.ErrHostUnreach))
	if strings.Contains(logs.String(), "[NET]") {
		t.Errorf("an uplink that starts down logged:\n%s", logs)
	}
	c.SetUplink(true)
	if !strings.Contains(logs.String(), "[NET] uplink up: ") {
		t.Errorf("no [NET] uplink up line once up; log:\n%s", logs)
	}
	testpods.Contains(t, relayVia(t, c.PodURL(), "a", "call GET http://"+host+"/ 500 64\n"), "call rc=200 status=200 ")
}
