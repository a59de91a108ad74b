package kubeletapi

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/client-go/util/retry"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testk8s"
)

// TestKubeletAPIOnARealCluster serves the kubelet API of a real kubelet
// running default/web, its reviews made by a real control plane
// (internal/testkit/testk8s, one for the whole test), and checks each rule of
// docs/kubeletapi.md in a subtest.
func TestKubeletAPIOnARealCluster(t *testing.T) {
	k8s := testk8s.Start(t)
	admin, err := clientcmd.BuildConfigFromFlags("", k8s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	clients := kubernetes.NewForConfigOrDie(admin)
	caPEM, err := os.ReadFile(k8s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	clientCAs := x509.NewCertPool()
	clientCAs.AppendCertsFromPEM(caPEM)

	n := startNode(t)
	// The node's resource metrics are another package's (the kubelet's);
	// the API mounts what it is given.
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "node_cpu_usage_seconds_total 0\n")
	})
	addr := serveAPI(t, n, Config{Reviews: admin, ClientCAs: clientCAs, ResourceMetrics: metrics})
	base := "https://" + addr
	c := client()

	t.Run("ServingCertificateNamesTheNodeIP", func(t *testing.T) {
		conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.ConnectionState().PeerCertificates[0].VerifyHostname("127.0.0.1"); err != nil {
			t.Errorf("serving certificate: %v", err)
		}
	})

	t.Run("AdminTokenPassesTokenReviewAndSubjectAccessReview", func(t *testing.T) {
		if code, body := do(t, c, "GET", base+"/healthz", k8s.Token); code != http.StatusOK || body != "ok" {
			t.Errorf("GET /healthz as admin: %d %q", code, body)
		}
		if code, body := do(t, c, "GET", base+"/metrics/resource", k8s.Token); code != http.StatusOK || !strings.HasPrefix(body, "node_cpu_usage_seconds_total") {
			t.Errorf("GET /metrics/resource as admin: %d %q, want Config.ResourceMetrics' answer", code, body)
		}
		if code, body := do(t, c, "GET", base+"/containerLogs/default/web/main", "not-a-token"); code != http.StatusUnauthorized {
			t.Errorf("logs with a token the cluster does not know: %d %q, want 401", code, body)
		}
	})

	t.Run("LogsTailLinesAndTimestamps", func(t *testing.T) {
		for range 3 {
			n.call(t)
		}
		code, body := do(t, c, "GET", base+"/containerLogs/default/web/main?tailLines=2", k8s.Token)
		if got := lines(body); code != http.StatusOK || len(got) != 2 || !strings.Contains(body, "hi") || !strings.Contains(body, "out") {
			t.Errorf("tailLines=2: %d %q, want the last request's two lines", code, body)
		}
		code, body = do(t, c, "GET", base+"/containerLogs/default/web/main?timestamps=true", k8s.Token)
		stamped := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z `)
		got := lines(body)
		if code != http.StatusOK || len(got) < 6 {
			t.Fatalf("timestamps=true: %d %q, want every line so far", code, body)
		}
		for _, l := range got {
			if !stamped.MatchString(l) {
				t.Errorf("timestamps=true: line %q has no RFC 3339 timestamp", l)
			}
		}
		if code, body := do(t, c, "GET", base+"/containerLogs/default/web/main?limitBytes=5", k8s.Token); code != http.StatusOK || len(body) != 5 {
			t.Errorf("limitBytes=5: %d %q, want 5 bytes", code, body)
		}
		if code, body := do(t, c, "GET", base+"/containerLogs/default/web/main?tailLines=-1", k8s.Token); code != http.StatusUnprocessableEntity || !strings.Contains(body, "tailLines") {
			t.Errorf("tailLines=-1: %d %q, want 422 naming tailLines", code, body)
		}
		if code, body := do(t, c, "GET", base+"/containerLogs/default/web/main?previous=true", k8s.Token); code != http.StatusBadRequest || !strings.Contains(body, `previous terminated container "main" in pod "web" not found`) {
			t.Errorf("previous=true without a restart: %d %q, want 400", code, body)
		}
	})

	t.Run("LogsPreviousAfterARestart", func(t *testing.T) {
		if code := n.request(t, "trap", "/deep"); code < 500 {
			t.Fatalf("GET /deep: %d, want the trap's 5xx", code)
		}
		testenv.Eventually(t, "pod trap to count its restart", func() bool {
			_, st, ok := n.kubelet.Running("default", "trap")
			return ok && st.RestartCount == 1
		})
		code, body := do(t, c, "GET", base+"/containerLogs/default/trap/main?previous=true", k8s.Token)
		if code != http.StatusOK || !strings.Contains(body, "k32_handle trapped") || strings.Contains(body, "restarted") {
			t.Errorf("previous=true after a trap: %d %q, want the first instance's lines only", code, body)
		}
	})

	t.Run("LogsFollowSeesANewLine", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := mustRequest(t, "GET", base+"/containerLogs/default/web/main?follow=true&tailLines=0", k8s.Token).WithContext(ctx)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("follow=true: %d", resp.StatusCode)
		}
		n.call(t)
		got := make(chan string, 1)
		go func() {
			l, _ := bufio.NewReader(resp.Body).ReadString('\n')
			got <- l
		}()
		select {
		case l := <-got:
			if l != "hi\n" && l != "out\n" {
				t.Errorf("followed log's first line %q, want the new request's", l)
			}
		case <-time.After(time.Minute): // a bound, not an expectation
			t.Fatal("follow=true saw no new line")
		}
	})

	t.Run("UnknownPodOrContainerIs404", func(t *testing.T) {
		if code, body := do(t, c, "GET", base+"/containerLogs/default/nope/main", k8s.Token); code != http.StatusNotFound || body != "pod \"nope\" does not exist\n" {
			t.Errorf("logs of an unknown pod: %d %q, want the kubelet's 404", code, body)
		}
		if code, body := do(t, c, "GET", base+"/containerLogs/default/web/sidecar", k8s.Token); code != http.StatusNotFound || !strings.Contains(body, `container "sidecar" not found in pod "web"`) {
			t.Errorf("logs of an unknown container: %d %q, want the kubelet's 404", code, body)
		}
	})

	t.Run("ExecAttachRunAreRefused", func(t *testing.T) {
		for _, path := range []string{"/exec/default/web/main?command=sh", "/attach/default/web/main", "/run/default/web/main"} {
			if code, body := do(t, c, "POST", base+path, k8s.Token); code != http.StatusBadRequest || !strings.Contains(body, "WebAssembly module with no shell") {
				t.Errorf("POST %s: %d %q, want 400 saying why", path, code, body)
			}
		}
	})

	t.Run("PortForwardWithClientGoSPDYReachesThePod", func(t *testing.T) {
		cfg := &rest.Config{Host: base, BearerToken: k8s.Token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		before := logLines(t, c, base, k8s.Token)
		local := forward(t, cfg, base+"/portForward/default/web", "8080")
		if code, _ := httpGet(t, "http://"+local+"/"); code != http.StatusOK {
			t.Errorf("GET through the forwarded port: %d, want the pod's 200", code)
		}
		if after := logLines(t, c, base, k8s.Token); after < before+2 {
			t.Errorf("the pod logged %d lines, then %d: the forwarded request did not reach it", before, after)
		}
	})

	t.Run("ServiceAccountWithoutRightsIs403", func(t *testing.T) {
		ctx := context.Background()
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nobody"}}
		if _, err := clients.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := clients.CoreV1().ServiceAccounts("default").CreateToken(ctx, "nobody", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		code, body := do(t, c, "GET", base+"/containerLogs/default/web/main", tr.Status.Token)
		if code != http.StatusForbidden || !strings.Contains(body, "user=system:serviceaccount:default:nobody") || !strings.Contains(body, "subresource=proxy") {
			t.Errorf("logs as a ServiceAccount without rights: %d %q, want 403 naming it", code, body)
		}
		if code, body := do(t, c, "GET", base+"/metrics/resource", tr.Status.Token); code != http.StatusForbidden || !strings.Contains(body, "subresource=metrics") {
			t.Errorf("/metrics/resource as a ServiceAccount without rights: %d %q, want 403 for nodes/metrics", code, body)
		}
	})

	t.Run("FloodOfBogusTokensAndInventedMethodsStarvesNoValidRequest", func(t *testing.T) {
		floodStarvesNoValidRequest(t, n, admin, k8s.Token, metrics)
	})

	t.Run("KubeAPIServerReachesTheNode", func(t *testing.T) {
		// kube-apiserver calls the API at the Node's InternalIP and kubelet
		// endpoint port, with its client certificate (CN
		// kube-apiserver-kubelet-client) signed by the cluster's CA.
		ctx := context.Background()
		_, port, _ := strings.Cut(addr, ":")
		p, _ := strconv.Atoi(port)
		registerNode(t, clients, p)
		web, err := clients.CoreV1().Pods("default").Create(ctx, webPod(), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Running, as the node's kubelet reports it (kubectl port-forward
		// checks).
		web.Status.Phase, web.Status.PodIP = corev1.PodRunning, "127.0.0.1"
		if _, err := clients.CoreV1().Pods("default").UpdateStatus(ctx, web, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		n.call(t)
		tail := int64(2)
		out, err := clients.CoreV1().Pods("default").GetLogs("web", &corev1.PodLogOptions{TailLines: &tail}).DoRaw(ctx)
		if err != nil || len(lines(string(out))) != 2 || !strings.Contains(string(out), "hi") {
			t.Errorf("pods/log through kube-apiserver: %v %q, want the last two lines", err, out)
		}
		u, err := url.Parse(admin.Host + "/api/v1/namespaces/default/pods/web/portforward")
		if err != nil {
			t.Fatal(err)
		}
		local := forward(t, admin, u.String(), "8080")
		if code, _ := httpGet(t, "http://"+local+"/"); code != http.StatusOK {
			t.Errorf("GET through pods/portforward of kube-apiserver: %d, want the pod's 200", code)
		}
		kubectl := testenv.Tool(t, "kubectl")
		local = kubectlPortForward(t, kubectl, k8s.Kubeconfig)
		if code, _ := httpGet(t, "http://"+local+"/"); code != http.StatusOK {
			t.Errorf("GET through kubectl port-forward (WebSocket to kube-apiserver): %d, want the pod's 200", code)
		}
	})
}

// logLines counts the lines of default/web's log.
func logLines(t *testing.T, c *http.Client, base, token string) int {
	t.Helper()
	code, body := do(t, c, "GET", base+"/containerLogs/default/web/main", token)
	if code != http.StatusOK {
		t.Fatalf("logs: %d %q", code, body)
	}
	return len(lines(body))
}

// forward runs client-go's port-forwarder with its SPDY dialer against
// url until the test ends and returns the local address of port.
func forward(t *testing.T, cfg *rest.Config, target, port string) string {
	t.Helper()
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, "POST", u)
	stop, ready := make(chan struct{}), make(chan struct{})
	var errOut strings.Builder
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:" + port}, stop, ready, io.Discard, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	failed := make(chan error, 1)
	go func() { failed <- fw.ForwardPorts() }()
	t.Cleanup(func() { close(stop) })
	select {
	case <-ready:
	case err := <-failed:
		t.Fatalf("port-forward to %s: %v", target, err)
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		t.Fatalf("forwarded ports %v: %v", ports, err)
	}
	return fmt.Sprintf("127.0.0.1:%d", ports[0].Local)
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	return do(t, &http.Client{Timeout: time.Minute}, "GET", url, "")
}

// registerNode creates the Node of the kubelet API in the cluster, at
// 127.0.0.1 and the API's port, as `kube32 node` registers it.
func registerNode(t *testing.T, clients kubernetes.Interface, port int) {
	t.Helper()
	ctx := context.Background()
	if _, err := clients.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kube-controller-manager writes a new Node at once (its taints): read
	// it again on a conflict, as a kubelet does.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := clients.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
		_, err = clients.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// kubectlPortForward runs `kubectl port-forward pod/web :8080` until the
// test ends and returns the local address it chose.
func kubectlPortForward(t *testing.T, kubectl, kubeconfig string) string {
	t.Helper()
	addr, _ := testenv.PortForward(t, execCommand(context.Background(), kubectl, "--kubeconfig", kubeconfig, "port-forward", "pod/web", ":8080"))
	return addr
}
