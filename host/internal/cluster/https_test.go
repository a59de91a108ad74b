package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// lineLog collects log lines from several goroutines.
type lineLog struct{ testenv.Lines }

// podLine logs a pod's line as a node does.
func (l *lineLog) podLine(namespace, name string, line pod.Line) {
	l.Logf("[%s/%s] %s", namespace, name, line.Text)
}

// waitLog waits until the log holds want.
func (l *lineLog) waitLog(t *testing.T, want string) {
	t.Helper()
	testenv.EventuallyNil(t, fmt.Sprintf("%q in the log", want), func() error {
		if s := l.String(); !strings.Contains(s, want) {
			return fmt.Errorf("the log is:\n%s", s)
		}
		return nil
	})
}

// TestHTTPSCalls checks docs/calls.md, "Calls to https:// hosts" and "The
// egress gateway", under serve: the control plane's pods call https:// hosts
// directly, the workers' pods through the gateway; both share two TLS
// sessions.
func TestHTTPSCalls(t *testing.T) {
	ca := testtls.NewCA(t)
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s tls=%x", r.URL.Path, r.TLS.Version)
	})
	serve := func(ip string, leaf testtls.Leaf, min, max uint16, h http.Handler) string {
		return testtls.Serve(t, ip, ca.Issue(t, leaf), min, max, h)
	}
	good := serve("127.0.0.60", testtls.Leaf{IPs: []string{"127.0.0.60"}}, 0, 0, hello)
	misnamed := serve("127.0.0.61", testtls.Leaf{IPs: []string{"127.0.0.60"}}, 0, 0, hello)
	expired := serve("127.0.0.62", testtls.Leaf{IPs: []string{"127.0.0.62"}, NotBefore: time.Now().Add(-48 * time.Hour),
		NotAfter: time.Now().Add(-24 * time.Hour)}, 0, 0, hello)
	untrusted := testtls.Serve(t, "127.0.0.63", testtls.NewCA(t).Issue(t, testtls.Leaf{IPs: []string{"127.0.0.63"}}), 0, 0, hello)
	tls13 := serve("127.0.0.64", testtls.Leaf{IPs: []string{"127.0.0.64"}}, tls.VersionTLS13, tls.VersionTLS13, hello)
	arrived := make(chan string, 2)
	release := make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.URL.Path
		select {
		case <-release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "slow")
	})
	slow1 := serve("127.0.0.65", testtls.Leaf{IPs: []string{"127.0.0.65"}}, 0, 0, slow)
	slow2 := serve("127.0.0.66", testtls.Leaf{IPs: []string{"127.0.0.66"}}, 0, 0, slow)

	logs := &lineLog{}
	// The [EGRESS] lines are let through once per abi.LogRateInterval of
	// this clock, which the test moves on rather than waiting.
	var skew atomic.Int64
	nextLogInterval := func() { skew.Add(int64(abi.LogRateInterval)) }
	objs := []manifest.Object{relay("a", "a", ControlPlaneName), relay("a2", "a2", ControlPlaneName), relay("b", "b", w1)}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), Objects: objs, Nodes: 2, Token: testToken,
		HandlerTimeout: 10 * time.Second, EgressCA: ca.WritePEM(t),
		logClock: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) },
		Logf:     logs.Logf,
		PodLog:   logs.podLine}, "a", "a2", "b")
	podURL := map[string]string{"a": c.PodURL(), "a2": c.PodURL(), "b": c.Workers[0].PodURL()}
	callFrom := func(p, url string, respCap int) string {
		return relayVia(t, podURL[p], p, fmt.Sprintf("call GET %s 5000 %d\n", url, respCap))
	}

	t.Run("success", func(t *testing.T) {
		for _, p := range []string{"a", "b"} {
			testpods.Contains(t, callFrom(p, "https://"+good+"/x", 4096), "call rc=200 status=200 ", "hello /x tls=303")
			testpods.Contains(t, callFrom(p, "https://"+good+"/long", 5), testpods.CallRC(abi.ErrTooBig)+"status=200 len=5 ")
		}
	})
	t.Run("certificates", func(t *testing.T) {
		for _, p := range []string{"a", "b"} {
			for _, host := range []string{misnamed, expired, untrusted} {
				testpods.Contains(t, callFrom(p, "https://"+host+"/", 4096), testpods.CallRC(abi.ErrCert))
			}
		}
		logs.waitLog(t, "[EGRESS] default/a -> https://"+misnamed+": certificate rejected: ")
		nextLogInterval() // the line is logged at most once per interval
		testpods.Contains(t, callFrom("b", "https://"+expired+"/", 4096), testpods.CallRC(abi.ErrCert))
		logs.waitLog(t, "[EGRESS] default/b -> https://"+expired+": certificate rejected: ")
	})
	t.Run("TLS 1.3 only", func(t *testing.T) {
		testpods.Contains(t, callFrom("a", "https://"+tls13+"/", 4096), testpods.CallRC(abi.ErrTLS))
		testpods.Contains(t, callFrom("b", "https://"+tls13+"/", 4096), testpods.CallRC(abi.ErrTLS))
	})
	t.Run("busy", func(t *testing.T) {
		// A control-plane pod and a worker's pod hold the two sessions.
		done := make(chan string, 2)
		for _, held := range [][2]string{{"a", slow1}, {"b", slow2}} {
			go func() {
				out, err := tryRelay(podURL[held[0]], held[0], "call GET https://"+held[1]+"/held 10000 4096\n")
				if err != nil {
					out = err.Error()
				}
				done <- out
			}()
		}
		<-arrived
		<-arrived
		testpods.Contains(t, callFrom("a2", "https://"+good+"/", 4096), testpods.CallRC(abi.ErrBusy))
		req, _ := http.NewRequest(http.MethodPost, c.APIURL()+abi.EgressPath+"?pod=default/b&timeout=5000&limit=10",
			strings.NewReader("GET https://"+good+"/ HTTP/1.1\r\n\r\n"))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "message/http")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || resp.Header.Get(abi.HeaderEgressResult) != testpods.Code(abi.ErrBusy) {
			t.Errorf("gateway with every session in use: %d %v", resp.StatusCode, resp.Header)
		}
		close(release)
		testpods.Contains(t, <-done, "call rc=200 ", "slow")
		testpods.Contains(t, <-done, "call rc=200 ", "slow")
		testpods.Contains(t, callFrom("a2", "https://"+good+"/", 4096), "call rc=200 ")
	})
	t.Run("gateway refusals", func(t *testing.T) {
		post := func(query, token string) *http.Response {
			req, _ := http.NewRequest(http.MethodPost, c.APIURL()+abi.EgressPath+"?"+query,
				strings.NewReader("GET https://"+good+"/ HTTP/1.1\r\n\r\n"))
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			req.Header.Set("Content-Type", "message/http")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		for _, tt := range []struct{ query, token, log string }{
			{"pod=default/b&timeout=5000&limit=10", "wrong", "(pod default/b): wrong bearer token"},
			{"pod=default/b&timeout=5000&limit=10", "", "(pod default/b): no bearer token"},
			{"pod=default/nope&timeout=5000&limit=10", testToken, "(pod default/nope): no such pod"},
		} {
			nextLogInterval() // the line is logged at most once per interval
			resp := post(tt.query, tt.token)
			if resp.StatusCode != 403 || resp.Header.Get(abi.HeaderEgressResult) != testpods.Code(abi.ErrPerm) {
				t.Errorf("%s with token %q: %d %v", tt.query, tt.token, resp.StatusCode, resp.Header)
			}
			logs.waitLog(t, "[EGRESS] gateway refused 127.0.0.1 "+tt.log)
		}
		if resp := post("pod=default/b&timeout=5000&limit=10", testToken); resp.StatusCode != 200 || resp.Header.Get(abi.HeaderEgressResult) != "200" {
			t.Errorf("a proper gateway request: %d %v", resp.StatusCode, resp.Header)
		}
	})
	t.Run("NetworkPolicy", func(t *testing.T) {
		nextLogInterval() // the gateway's line is logged at most once per interval
		c.Store.Apply(denyEgress("deny", "b"))
		// The gateway checks the store's policies: a change applies from
		// the next call.
		testpods.Contains(t, callFrom("b", "https://"+good+"/", 4096), testpods.CallRC(abi.ErrPerm))
		logs.waitLog(t, "[EGRESS] gateway refused 127.0.0.2 (pod default/b): NetworkPolicy: "+good+" denied: ")
		testpods.Contains(t, callFrom("a", "https://"+good+"/", 4096), "call rc=200 ")
		c.Store.Apply(denyEgress("deny-a", "a"))
		testpods.Contains(t, callFrom("a", "https://"+good+"/", 4096), testpods.CallRC(abi.ErrPerm))
		logs.waitLog(t, "[default/a] [NETPOL] default/a -> "+good+" denied: ")
		c.Store.Delete(store.Key{Kind: "NetworkPolicy", Namespace: "default", Name: "deny"})
		testpods.Contains(t, callFrom("b", "https://"+good+"/", 4096), "call rc=200 ")
	})
}

func TestEgressCAMustHoldCertificates(t *testing.T) {
	empty := t.TempDir() + "/empty.pem"
	if err := os.WriteFile(empty, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{empty, t.TempDir() + "/missing.pem"} {
		c, err := Start(context.Background(), Options{Images: os.DirFS(t.TempDir()), EgressCA: file})
		if err == nil {
			c.Close()
			t.Fatalf("EgressCA %s: no error", file)
		}
		if !strings.Contains(err.Error(), "egress CA") {
			t.Errorf("EgressCA %s: %v", file, err)
		}
	}
}
