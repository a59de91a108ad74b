package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"

	networkingv1 "k8s.io/api/networking/v1"
)

// benchToken is the cluster token of the token fault's own cluster.
const benchToken = "bench-faults-cluster-token"

// floodFor is how long each token guessing flood runs.
const floodFor = 2 * time.Second

// runToken runs the attacks on the cluster token of docs/ui.md ("The
// token") and docs/serve.md ("Hostile clients") against a cluster of its
// own with a token: the cookies pod (internal/testkit/testpods/c/cookies.c) on the
// control plane and on the worker, sent the web view's session cookie
// through the Ingress as a browser that logged in to the view sends it,
// and trying to set it; then floods of wrong bearer tokens and logins.
func runToken(s *server) []row {
	const fault = "token"
	if err := buildCPod(s.images, "cookies", "cookies.c"); err != nil {
		return failed(fault, err)
	}
	var authLines atomic.Int64
	objects := []manifest.Object{
		benchPod("jar-cp", "cookies", host.ControlPlaneName), benchPod("jar-w", "cookies", host.WorkerName(1)),
		service("jar-cp", 80), service("jar-w", 80),
		ingress("jar-cp", "/cp", networkingv1.PathTypePrefix), ingress("jar-w", "/w", networkingv1.PathTypePrefix),
	}
	c, err := host.Start(context.Background(), host.Options{Images: os.DirFS(s.images), Objects: objects, Nodes: 2, Token: benchToken,
		Logf: func(format string, _ ...any) {
			if strings.HasPrefix(format, "[AUTH]") {
				authLines.Add(1)
			}
		}})
	if err != nil {
		return failed(fault, err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		return failed(fault, err)
	}

	cookie := abi.SessionCookie + "=" + benchToken + "; " + abi.TokenCookie + "=" + benchToken + "; app=1"
	var rows []row
	for _, p := range []struct{ what, path string }{{"control-plane pod", "/cp/echo"}, {"worker pod", "/w/echo"}} {
		_, body, err := get(c.IngressURL()+p.path, cookie)
		seen := "no"
		switch {
		case err != nil:
			seen = "failed: " + err.Error()
		case !strings.HasPrefix(body, "cookie=app=1"):
			seen = "YES: " + strings.TrimSpace(body)
		}
		rows = append(rows, row{"session cookie via the Ingress", "pod saw the token cookie (" + p.what + ")", seen})
	}
	h, _, err := get(c.IngressURL()+"/cp/set", "")
	set := "no"
	switch {
	case err != nil:
		set = "failed: " + err.Error()
	case strings.Contains(strings.Join(h.Values("Set-Cookie"), "\n"), abi.TokenCookie):
		set = "YES: " + strings.Join(h.Values("Set-Cookie"), " | ")
	}
	rows = append(rows, row{"pod sets the session cookie", "its Set-Cookie reached the browser", set})

	bearer := func(client *http.Client, token string) int {
		req, _ := http.NewRequest(http.MethodGet, c.APIURL()+"/api/v1/namespaces", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return status(client.Do(req))
	}
	login := func(client *http.Client, token string) int {
		return status(client.PostForm(c.APITLSURL()+abi.UIPath+"login", url.Values{"token": {token}}))
	}
	attacker, other := clientFrom("127.0.0.1"), clientFrom("127.0.0.3")
	tlsAttacker := clientFrom("127.0.0.4")
	tlsAttacker.Transport.(*http.Transport).TLSClientConfig = trustCA(c.APICA())
	rows = append(rows, flood("bearer guesses", func() int { return bearer(attacker, "guess") })...)
	rows = append(rows, row{"bearer guesses", "right token from another address meanwhile", fmt.Sprint(bearer(other, benchToken))})
	rows = append(rows, flood("/ui/login guesses", func() int { return login(tlsAttacker, "guess") })...)
	rows = append(rows, row{"token guesses", "[AUTH] log lines over both floods", fmt.Sprint(authLines.Load())})
	return rows
}

// flood sends guesses for floodFor and reports how many were checked (401)
// and how many refused unchecked (429).
func flood(fault string, guess func() int) []row {
	before429, checked, limited, first429 := 0, 0, 0, false
	start := time.Now()
	for time.Since(start) < floodFor {
		switch guess() {
		case http.StatusUnauthorized:
			checked++
			if !first429 {
				before429++
			}
		case http.StatusTooManyRequests:
			limited++
			first429 = true
		}
	}
	secs := time.Since(start).Seconds()
	return []row{
		{fault, "wrong tokens answered 401 before the first 429", fmt.Sprint(before429)},
		{fault, fmt.Sprintf("guesses checked per second over %s", floodFor), fmt.Sprintf("%.1f (%d refused unchecked with 429, %.0f/s)", float64(checked)/secs, limited, float64(limited)/secs)},
	}
}

func get(u, cookie string) (http.Header, string, error) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.Header, string(b), err
}

func status(resp *http.Response, err error) int {
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// clientFrom is a keep-alive client whose connections come from ip.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
}

// trustCA is a TLS configuration that trusts the CA certificate ca (PEM).
func trustCA(ca []byte) *tls.Config {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	return &tls.Config{RootCAs: roots}
}
