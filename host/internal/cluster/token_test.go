package cluster

import (
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// jar is a cookies test pod (internal/testkit/testpods/c/cookies.c) labelled
// app=<name>, pinned to node, allowed to call Services.
func jar(name, node string) manifest.Object {
	return manifest.Object{Obj: pinnedPod(name, name, node, "cookies", corev1.Container{SecurityContext: capabilities("SERVICE_CALL")})}
}

// jarIngress routes /cp to the Service jar-cp and /w to jar-w.
func jarIngress() manifest.Object {
	prefix := networkingv1.PathTypePrefix
	path := func(p, service string) networkingv1.HTTPIngressPath {
		return networkingv1.HTTPIngressPath{Path: p, PathType: &prefix, Backend: networkingv1.IngressBackend{
			Service: &networkingv1.IngressServiceBackend{Name: service, Port: networkingv1.ServiceBackendPort{Number: 80}}}}
	}
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "jar"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{path("/cp", "jar-cp"), path("/w", "jar-w")}}}}}},
	}}
}

// startJars runs a 2-node cluster with a token: jar-cp on the control
// plane with jar-cp2, jar-w on the worker, the first and the last behind
// the Ingress.
func startJars(t *testing.T) *Cluster {
	t.Helper()
	objs := []manifest.Object{jar("jar-cp", ControlPlaneName), jar("jar-cp2", ControlPlaneName), jar("jar-w", w1),
		svc("jar-cp"), svc("jar-cp2"), svc("jar-w"), jarIngress()}
	return startReady(t, Options{Images: os.DirFS(fixtureImages(t, "cookies")), Objects: objs, Nodes: 2, Token: testToken,
		HandlerTimeout: 5 * time.Second}, "jar-cp", "jar-cp2", "jar-w")
}

// browserCookies is what a browser that logged in to the web view sends to
// every port of 127.0.0.1: the session cookie, the cookie of the view
// before it, and a cookie of the app's own.
const browserCookies = abi.SessionCookie + "=" + testToken + "; " + abi.TokenCookie + "=" + testToken + "; app=1"

// TestPodsNeverSeeTheTokenCookie is the rule of docs/ui.md, "The token":
// the reserved cookies reach no pod, by any path a request takes to one
// (the Ingress to a pod of the control plane in-process and to a pod of a
// worker over HTTP, each node's pod port, a Service call), while the
// other cookies do.
func TestPodsNeverSeeTheTokenCookie(t *testing.T) {
	c := startJars(t)
	get := func(url, podHeader, cookie string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Cookie", cookie)
		if podHeader != "" {
			req.Header.Set(abi.HeaderPod, podHeader)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
		}
		return string(b)
	}
	for _, p := range []struct{ what, url, pod string }{
		{"Ingress to the control plane's pod", c.IngressURL() + "/cp/echo", ""},
		{"Ingress to the worker's pod", c.IngressURL() + "/w/echo", ""},
		{"the control plane's pod port", c.PodURL() + "/echo", "default/jar-cp"},
		{"the worker's pod port", c.Workers[0].PodURL() + "/echo", "default/jar-w"},
	} {
		if got := get(p.url, p.pod, browserCookies); got != "cookie=app=1\n" {
			t.Errorf("%s: the pod saw %q, want only app=1", p.what, got)
		}
		// A request whose only cookies are reserved has no Cookie header.
		if got := get(p.url, p.pod, abi.SessionCookie+"="+testToken); got != "cookie="+testpods.Code(abi.ErrNoEnt)+"\n" {
			t.Errorf("%s, the session cookie alone: the pod saw %q, want no Cookie header", p.what, got)
		}
	}
	// Service calls, in-process and across nodes: the caller's reserved
	// cookies never reach the pod it calls.
	for _, hop := range [][2]string{{"/cp/call", "http://jar-w/echo"}, {"/w/call", "http://jar-cp/echo"}, {"/cp/call", "http://jar-cp2/echo"}} {
		resp, err := http.Post(c.IngressURL()+hop[0], "text/plain", strings.NewReader(hop[1]))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		testpods.Contains(t, string(b), "call rc=200\n", "cookie=caller=1\n")
	}
}

// TestPodsCannotSetTheTokenCookie: a pod's Set-Cookie of a reserved
// cookie is refused (K32_ERR_INVAL) and never leaves the node, through
// the Ingress from either node; the pod's own cookie does.
func TestPodsCannotSetTheTokenCookie(t *testing.T) {
	c := startJars(t)
	inval := testpods.Code(abi.ErrInval)
	for _, path := range []string{"/cp/set", "/w/set"} {
		resp, err := http.Get(c.IngressURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		testpods.Contains(t, string(b), "set session="+inval+"\n", "set old="+inval+"\n", "set nameless="+inval+"\n", "set own=0\n")
		if got := resp.Header.Values("Set-Cookie"); !slices.Equal(got, []string{"pod-cookie=1; Path=/"}) {
			t.Errorf("GET %s: Set-Cookie %q, want only the pod's own cookie", path, got)
		}
	}
}
