package apiserver_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestKubectl drives the real kubectl against a cluster: apply the echo
// example (examples/echo), get every kind with kube-apiserver's columns,
// describe, logs, patch, edit, get -w and delete.
func TestKubectl(t *testing.T) {
	e := startCluster(t, "")
	echoYAML := filepath.Join("..", "..", "..", "examples", "echo", "echo.yaml")

	out := e.run(t, false, "apply", "-f", echoYAML)
	for _, want := range []string{"pod/echo created", "service/echo created", "ingress.networking.k8s.io/echo created"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply said %q, lacking %q", out, want)
		}
	}
	testenv.Eventually(t, "pod echo to run and the ingress to get its address", func() bool {
		o, ok := e.c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "echo"})
		return ok && o.(*corev1.Pod).Status.Phase == corev1.PodRunning && e.c.Ready()
	})
	if out := e.run(t, false, "apply", "-f", echoYAML); strings.Count(out, "unchanged") != 3 {
		t.Errorf("applying again: %q, want three objects unchanged", out)
	}

	for _, tt := range []struct {
		args   []string
		header string
		row    string
	}{
		{[]string{"get", "pods"}, "NAME READY STATUS RESTARTS AGE", "echo 1/1 Running 0"},
		{[]string{"get", "po", "-o", "wide"}, "NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES", "echo 1/1 Running 0"},
		{[]string{"get", "svc"}, "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE", "echo ClusterIP <none> <none> 80/TCP"},
		{[]string{"get", "ep"}, "NAME ENDPOINTS AGE", "echo 127.0.0.1:7000"},
		{[]string{"get", "endpointslices"}, "NAME ADDRESSTYPE PORTS ENDPOINTS AGE", "IPv4 7000 127.0.0.1"},
		{[]string{"get", "ing"}, "NAME CLASS HOSTS ADDRESS PORTS AGE", "echo <none> * 127.0.0.1 80"},
		{[]string{"get", "no"}, "NAME STATUS ROLES AGE VERSION", "kube32-control-plane Ready control-plane"},
		{[]string{"get", "ns", "default"}, "NAME STATUS AGE", "default Active"},
		{[]string{"get", "leases", "-n", "kube-node-lease"}, "NAME HOLDER AGE", "kube32-control-plane kube32-control-plane"},
	} {
		out := e.run(t, false, tt.args...)
		header, rows := table(out)
		if strings.Join(header, " ") != tt.header {
			t.Errorf("kubectl %s: header %q, want %q", strings.Join(tt.args, " "), strings.Join(header, " "), tt.header)
		}
		if len(rows) != 1 || !strings.Contains(strings.Join(rows[0], " "), tt.row) {
			t.Errorf("kubectl %s: rows %q, want one holding %q", strings.Join(tt.args, " "), rows, tt.row)
		}
	}

	t.Run("netpol", func(t *testing.T) {
		policy := filepath.Join(t.TempDir(), "netpol.yaml")
		os.WriteFile(policy, []byte(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: only-web}
spec:
  podSelector: {matchLabels: {app: echo}}
  ingress: [{from: [{podSelector: {matchLabels: {role: web}}}]}]
`), 0o644)
		e.run(t, false, "apply", "-f", policy)
		header, rows := table(e.run(t, false, "get", "netpol"))
		if strings.Join(header, " ") != "NAME POD-SELECTOR AGE" || len(rows) != 1 || rows[0][1] != "app=echo" {
			t.Errorf("get netpol: %q %q", header, rows)
		}
		if out := e.run(t, false, "get", "netpol", "only-web", "-o", "jsonpath={.spec.policyTypes}"); out != `["Ingress"]` {
			t.Errorf("policyTypes defaulted to %s, want [\"Ingress\"]", out)
		}
	})

	t.Run("describe pod", func(t *testing.T) {
		out := e.run(t, false, "describe", "pod", "echo")
		for _, want := range []string{"Name:", "echo", "Node:", "kube32-control-plane/127.0.0.1", "Status:", "Running",
			"Image:", "wasm://embedded/echo", "GREETING:", "hello from echo", "Restart Count:  0", "Ready             True",
			"Events:", "Normal  Started", "kubelet", "Started container echo"} {
			if !strings.Contains(out, want) {
				t.Errorf("describe pod lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("logs", func(t *testing.T) {
		if out := e.run(t, false, "logs", "echo"); !strings.Contains(out, "[POD] default/echo started") {
			t.Errorf("kubectl logs echo = %q", out)
		}
	})

	t.Run("patch", func(t *testing.T) {
		e.run(t, false, "patch", "svc", "echo", "-p", `{"metadata":{"labels":{"tier":"web"}}}`)
		e.run(t, false, "patch", "svc", "echo", "--type=merge", "-p", `{"metadata":{"labels":{"merged":"yes"}}}`)
		e.run(t, false, "patch", "svc", "echo", "--type=json", "-p", `[{"op":"add","path":"/metadata/labels/json","value":"yes"}]`)
		out := e.run(t, false, "get", "svc", "echo", "-o", "jsonpath={.metadata.labels}")
		for _, want := range []string{`"tier":"web"`, `"merged":"yes"`, `"json":"yes"`} {
			if !strings.Contains(out, want) {
				t.Errorf("labels %s lack %s", out, want)
			}
		}
		// The Endpoints follow the Service's labels.
		if out := e.run(t, false, "get", "ep", "echo", "-o", "jsonpath={.metadata.labels.tier}"); out != "web" {
			t.Errorf("endpoints label tier = %q", out)
		}
	})

	t.Run("edit", func(t *testing.T) {
		editor := filepath.Join(t.TempDir(), "editor.sh")
		os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/sessionAffinity: None/sessionAffinity: ClientIP/' \"$1\"\n"), 0o755)
		cmd := e.cmd(t, []string{"KUBE_EDITOR=" + editor}, "edit", "svc", "echo")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "service/echo edited") {
			t.Fatalf("kubectl edit: %v\n%s", err, out)
		}
		if out := e.run(t, false, "get", "svc", "echo", "-o", "jsonpath={.spec.sessionAffinity}"); out != "ClientIP" {
			t.Errorf("sessionAffinity after edit = %q", out)
		}
	})

	t.Run("the ingress routes to what kubectl applied", func(t *testing.T) {
		resp, err := http.Post(e.c.IngressURL()+"/echo/hello", "text/plain", strings.NewReader("hi"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "hello from echo") {
			t.Errorf("POST /echo/hello: %d %q", resp.StatusCode, body)
		}
	})

	t.Run("logs -f follows the pod across a restart by an image change", func(t *testing.T) {
		// A Pod's spec changes only in what kube-apiserver allows (its
		// images among them): the same module as a second image.
		wasm := filepath.Join(e.images, "firmware", "images", "wasm")
		module, err := os.ReadFile(filepath.Join(wasm, "echo.wasm"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(wasm, "echo_v2.wasm"), module, 0o644); err != nil {
			t.Fatal(err)
		}
		follow := e.cmd(t, nil, "logs", "-f", "echo")
		var buf testenv.Buffer
		follow.Stdout, follow.Stderr = &buf, &buf
		if err := follow.Start(); err != nil {
			t.Fatal(err)
		}
		defer follow.Process.Kill()
		testenv.Eventually(t, "logs -f to print the start", func() bool { return strings.Count(buf.String(), "started") == 1 })
		e.run(t, false, "patch", "pod", "echo", "-p", `{"spec":{"containers":[{"name":"echo","image":"wasm://embedded/echo_v2"}]}}`)
		testenv.Eventually(t, "logs -f to print the restart", func() bool { return strings.Count(buf.String(), "started") >= 2 })
		testenv.Eventually(t, "the restarted pod to answer from its new image", func() bool {
			o, ok := e.c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "echo"})
			if !ok || len(o.(*corev1.Pod).Status.ContainerStatuses) == 0 || o.(*corev1.Pod).Status.ContainerStatuses[0].Image != "wasm://embedded/echo_v2" {
				return false
			}
			resp, err := http.Post(e.c.IngressURL()+"/echo/x", "text/plain", nil)
			if err != nil {
				return false
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return strings.Contains(string(body), "hello from echo")
		})
	})

	t.Run("get -w sees a change, delete ends the pod", func(t *testing.T) {
		watch := e.cmd(t, nil, "get", "pods", "-w", "--output-watch-events")
		var buf testenv.Buffer
		watch.Stdout, watch.Stderr = &buf, &buf
		if err := watch.Start(); err != nil {
			t.Fatal(err)
		}
		defer watch.Process.Kill()
		testenv.Eventually(t, "the watch to list the pod", func() bool { return strings.Contains(buf.String(), "echo") })
		e.run(t, false, "label", "pod", "echo", "seen=yes")
		out := e.run(t, false, "delete", "pod", "echo")
		if !strings.Contains(out, `pod "echo" deleted`) {
			t.Errorf("delete said %q", out)
		}
		if _, ok := e.c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "echo"}); ok {
			t.Error("pod still in the store after kubectl delete waited for it")
		}
		testenv.Eventually(t, "the watch to see MODIFIED, Terminating and DELETED", func() bool {
			s := buf.String()
			return strings.Contains(s, "MODIFIED") && strings.Contains(s, "Terminating") && strings.Contains(s, "DELETED")
		})
		if out := e.run(t, false, "get", "ep", "echo"); !strings.Contains(out, "<none>") {
			t.Errorf("endpoints after the pod went: %q", out)
		}
	})

	t.Run("a pod that fits no node stays Pending with a reason", func(t *testing.T) {
		nowhere := filepath.Join(t.TempDir(), "nowhere.yaml")
		os.WriteFile(nowhere, []byte(`apiVersion: v1
kind: Pod
metadata: {name: nowhere}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c, image: "wasm://embedded/echo"}]
`), 0o644)
		e.run(t, false, "apply", "-f", nowhere)
		testenv.Eventually(t, "the FailedScheduling event", func() bool {
			out := e.run(t, false, "describe", "pod", "nowhere")
			return strings.Contains(out, "FailedScheduling") && strings.Contains(out, "didn't match Pod's node affinity/selector")
		})
		_, rows := table(e.run(t, false, "get", "pod", "nowhere"))
		if len(rows) != 1 || rows[0][2] != "Pending" {
			t.Errorf("get pod nowhere: %q, want Pending", rows)
		}
		e.run(t, false, "delete", "-f", nowhere)
	})

	t.Run("unknown kind", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		os.WriteFile(bad, []byte("apiVersion: v1\nkind: Gadget\nmetadata: {name: x}\n"), 0o644)
		if out := e.run(t, true, "apply", "-f", bad); !strings.Contains(out, `no matches for kind "Gadget" in version "v1"`) {
			t.Errorf("apply of an unknown kind said %q", out)
		}
	})

	t.Run("server-side field validation", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		os.WriteFile(bad, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: typo}\nspec:\n  selector: {app: x}\n  prots: []\n"), 0o644)
		out := e.run(t, true, "apply", "-f", bad)
		if !strings.Contains(out, `unknown field "spec.prots"`) {
			t.Errorf("apply of an unknown field said %q", out)
		}
		if _, ok := e.c.Store.Get(store.Key{Kind: "Service", Namespace: "default", Name: "typo"}); ok {
			t.Error("the invalid Service was stored")
		}
	})
}
