package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

const webService = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"ports":[{"port":80}]}}`

// pageContentTypes are the bodies a page of any site may send to any port
// without a preflight: text/plain, the two form encodings, and none (then
// with the Origin every browser sends on a POST).
var pageContentTypes = []struct{ contentType, origin string }{
	{"text/plain;charset=UTF-8", "http://127.0.0.1:8000"},
	{"text/plain", ""},
	{"application/x-www-form-urlencoded", "http://127.0.0.1:8000"},
	{"multipart/form-data; boundary=b", "null"},
	{"", "http://127.0.0.1:8000"},
}

// TestAPIPortRefusesTheBodiesAPageCanSend is the rule of docs/serve.md,
// "Web pages", on a real cluster without a token: every endpoint of the API
// port that reads a body (create, update, patch, delete with
// DeleteOptions, a review, a channel message, the web view's login, the
// uplink, the egress gateway) answers a body a page of another site can
// send without a preflight 415 as a Status (the login, whose page sends a
// form, takes that one form), and nothing changes: the object, the
// channel, the uplink. The media types their own clients send are read,
// and so is kubectl create --raw's body without Content-Type.
func TestAPIPortRefusesTheBodiesAPageCanSend(t *testing.T) {
	c := startReady(t, Options{})
	api := c.APIURL()
	services := api + "/api/v1/namespaces/default/services"
	if r := testhttp.Post(t, services, webService, "Content-Type: application/json"); r.Status != http.StatusCreated {
		t.Fatalf("creating the Service as kubectl does: %s", r)
	}
	key := store.Key{Kind: "Service", Namespace: "default", Name: "web"}
	svc, _ := c.Store.Get(key)
	version := svc.(metav1.Object).GetResourceVersion()
	sub := c.Channels.Subscribe("test", []string{"t"}, 16)
	defer sub.Close()

	endpoints := []struct{ name, method, url, body string }{
		{"create", http.MethodPost, services, strings.Replace(webService, `"web"`, `"page"`, 1)},
		{"update", http.MethodPut, services + "/web", strings.Replace(webService, `"name":"web"`, `"name":"web","labels":{"by":"page"}`, 1)},
		{"patch", http.MethodPatch, services + "/web", `{"metadata":{"labels":{"by":"page"}}}`},
		{"delete with DeleteOptions", http.MethodDelete, services + "/web", `{"kind":"DeleteOptions","apiVersion":"v1"}`},
		{"review", http.MethodPost, api + "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", `{"spec":{"resourceAttributes":{"verb":"create","resource":"pods"}}}`},
		{"channel message", http.MethodPost, api + abi.ChannelsPath + "/t", `{"from":"a page"}`},
		{"web view login", http.MethodPost, api + abi.UIPath + "login", "token=guess"},
		{"uplink", http.MethodPut, api + abi.UplinkPath, `{"up":false}`},
		{"egress gateway", http.MethodPost, api + abi.EgressPath + "?pod=default/web&timeout=1000&limit=10", "GET https://example.com/ HTTP/1.1\r\n\r\n"},
	}
	for _, e := range endpoints {
		for _, p := range pageContentTypes {
			if e.name == "web view login" && p.contentType == "application/x-www-form-urlencoded" {
				continue // its own form, read below
			}
			headers := []string{}
			if p.contentType != "" {
				headers = append(headers, "Content-Type: "+p.contentType)
			}
			if p.origin != "" {
				headers = append(headers, "Origin: "+p.origin)
			}
			r := testhttp.Do(t, e.method, e.url, e.body, headers...)
			var st metav1.Status
			if err := json.Unmarshal([]byte(r.Body), &st); err != nil || r.Status != http.StatusUnsupportedMediaType ||
				st.Reason != metav1.StatusReasonUnsupportedMediaType || !strings.Contains(st.Message, "accepted media types include: ") {
				t.Errorf("%s (%s %s) with Content-Type %q, Origin %q: %s, want 415 UnsupportedMediaType", e.name, e.method, e.url, p.contentType, p.origin, r)
			}
		}
	}
	if o, ok := c.Store.Get(key); !ok || o.(metav1.Object).GetResourceVersion() != version {
		t.Errorf("the Service changed or went: %v", o)
	}
	if _, ok := c.Store.Get(store.Key{Kind: "Service", Namespace: "default", Name: "page"}); ok {
		t.Error("the page's Service was created")
	}
	if ms := sub.Take(); len(ms) > 0 {
		t.Errorf("the page's channel messages were published: %v", ms)
	}
	if !c.uplink.Up() {
		t.Error("the page took the uplink down")
	}

	// What the endpoints' own clients send is read.
	for _, ct := range []string{apiauth.ChannelContentType, "application/json"} {
		if r := testhttp.Post(t, api+abi.ChannelsPath+"/t", "m", "Content-Type: "+ct); r.Status != http.StatusAccepted {
			t.Errorf("a channel message as %s: %s, want 202", ct, r)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if ms, err := sub.Next(ctx); err != nil || len(ms) == 0 || string(ms[0].Data) != "m" {
		t.Errorf("the first message on t: %v %v, want the one sent as application/octet-stream", ms, err)
	}
	if r := testhttp.Post(t, services, strings.Replace(webService, `"web"`, `"raw"`, 1)); r.Status != http.StatusCreated {
		t.Errorf("a Service without Content-Type, as kubectl create --raw sends it: %s, want 201 as kube-apiserver answers", r)
	}
	if r := testhttp.Post(t, api+abi.UIPath+"login", "token=x", "Content-Type: application/x-www-form-urlencoded;charset=UTF-8", "Origin: "+api); r.Status != http.StatusNoContent {
		t.Errorf("the web view's login as its page sends it: %s, want 204", r)
	}
	if r := testhttp.Do(t, http.MethodPut, api+abi.UplinkPath, `{"up":true}`, "Content-Type: application/json"); r.Status != http.StatusOK {
		t.Errorf("PUT the uplink as kube32 uplink does: %s, want 200", r)
	}
	// For a pod that does not exist: the gateway itself refuses it, once
	// the body's type has passed.
	if r := testhttp.Post(t, endpoints[8].url, endpoints[8].body, "Content-Type: message/http"); r.Status != http.StatusForbidden ||
		r.Header.Get(abi.HeaderEgressResult) != strconv.Itoa(int(abi.ErrPerm)) {
		t.Errorf("an egress request as workers send it: %s, want the gateway's own 403 (K32_ERR_PERM)", r)
	}
}

// TestAPIPortsWithoutTokenAnswerOnlyTheirOwnHostNames is the rule of
// docs/serve.md, "Web pages", on a real cluster without a token: both API
// ports, plain and HTTPS, refuse a Host that is not loopback, localhost or
// a name of Options.AcceptHosts (serve's --accept-hosts) with 403 naming
// it and the flag, health checks included; and no answer grants a page of
// another origin a read (no Access-Control-Allow-Origin, preflights
// included). A bad --accept-hosts is an error at start.
func TestAPIPortsWithoutTokenAnswerOnlyTheirOwnHostNames(t *testing.T) {
	if _, err := Start(context.Background(), Options{AcceptHosts: "ok,(bad"}); err == nil || !strings.Contains(err.Error(), "--accept-hosts") {
		t.Errorf("Start with a bad AcceptHosts: %v, want an error naming --accept-hosts", err)
	}
	c := startReady(t, Options{AcceptHosts: `dev\.lan`})
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(c.APICA())
	clients := map[string]*http.Client{
		c.APIURL():    {},
		c.APITLSURL(): {Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}},
	}
	do := func(client *http.Client, method, url, host string, header ...string) (int, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(method, url, nil)
		req.Host = host
		for _, h := range header {
			name, value, _ := strings.Cut(h, ": ")
			req.Header.Set(name, value)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	for base, client := range clients {
		_, port, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(base, "http://"), "https://"), ":")
		for _, path := range []string{"/api/v1/namespaces/default/pods", "/readyz", abi.UIPath + "session"} {
			for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "dev.lan:" + port} {
				if code, _ := do(client, http.MethodGet, base+path, host); code != http.StatusOK {
					t.Errorf("GET %s%s with Host %s: %d, want 200", base, path, host, code)
				}
			}
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Host = "evil.example:" + port
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var st metav1.Status
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden ||
				!strings.Contains(st.Message, `Host "evil.example:`+port+`"`) || !strings.Contains(st.Message, "--accept-hosts") {
				t.Errorf("GET %s%s with Host evil.example: %d %+v (%v), want 403 naming the Host and --accept-hosts", base, path, resp.StatusCode, st, err)
			}
		}
		// No CORS grant: not on a read, not on a preflight of a write.
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, "/api/v1/namespaces/default/pods"}, {http.MethodGet, "/readyz"}, {http.MethodGet, abi.UIPath + "session"},
			{http.MethodOptions, "/api/v1/namespaces/default/pods"}, {http.MethodOptions, abi.ChannelsPath + "/t"}, {http.MethodOptions, abi.UIPath + "login"},
		} {
			_, h := do(client, r.method, base+r.path, "127.0.0.1:"+port, "Origin: http://127.0.0.1:8000",
				"Access-Control-Request-Method: POST", "Access-Control-Request-Headers: content-type")
			for name := range h {
				if strings.HasPrefix(strings.ToLower(name), "access-control-") {
					t.Errorf("%s %s%s with an Origin: answered %s: %q, want no CORS header", r.method, base, r.path, name, h.Get(name))
				}
			}
		}
	}
}
