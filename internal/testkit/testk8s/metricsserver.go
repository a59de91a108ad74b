package testk8s

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// MetricsResolution is how often metrics-server scrapes every node's
// kubelet: the least it accepts.
const MetricsResolution = 10 * time.Second

// MetricsAPIService is the APIService that StartMetricsServer registers.
const MetricsAPIService = "v1beta1.metrics.k8s.io"

// StartMetricsServer builds or reuses metrics-server, runs it on a free
// loopback port until the test ends, and registers it with c's aggregation
// layer as the Metrics API (metrics.k8s.io), as a cluster's metrics-server
// Deployment and APIService do. It scrapes each Node at its InternalIP and
// kubelet endpoint port (status.daemonEndpoints), path /metrics/resource,
// without verifying the kubelet's certificate. It returns once the
// APIService is Available; its log is Dir/metrics-server.log.
func StartMetricsServer(t testing.TB, c *Cluster) {
	t.Helper()
	path := MetricsServer(t)
	start := time.Now()
	port := freePort(t)
	run(t, c, "metrics-server", path,
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+port,
		"--cert-dir="+filepath.Join(c.Dir, "metrics-server-certs"),
		"--kubelet-insecure-tls",
		// The address types of metrics-server's released manifest.
		"--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
		"--kubelet-use-node-status-port",
		"--metric-resolution="+MetricsResolution.String(),
		// It refuses a request timeout over 9/10 of the resolution, and
		// the default is 10 s.
		"--kubelet-request-timeout=5s",
	)
	// Its /readyz fails until it has two scrapes of some node, so /livez
	// says it is up.
	self := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	waitHTTP(t, c, "metrics-server /livez", self, "https://127.0.0.1:"+port+"/livez", "")

	// kube-apiserver reaches an APIService's Service at its ClusterIP,
	// which nothing routes here, except an ExternalName Service, whose
	// name it dials at the APIService's port.
	p, _ := strconv.Atoi(port)
	api := c.client(t)
	c.create(t, api, "/api/v1/namespaces/kube-system/services", map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "metrics-server", "namespace": "kube-system"},
		"spec":     map[string]any{"type": "ExternalName", "externalName": "127.0.0.1"},
	})
	c.create(t, api, "/apis/apiregistration.k8s.io/v1/apiservices", map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": MetricsAPIService},
		"spec": map[string]any{
			"group": "metrics.k8s.io", "version": "v1beta1",
			"service":               map[string]any{"name": "metrics-server", "namespace": "kube-system", "port": p},
			"insecureSkipTLSVerify": true,
			"groupPriorityMinimum":  100, "versionPriority": 100,
		},
	})
	c.waitAvailable(t, api, MetricsAPIService)
	t.Logf("testk8s: metrics-server serving the Metrics API in %s", time.Since(start).Round(100*time.Millisecond))
}

// client is an HTTP client that trusts kube-apiserver's certificate.
func (c *Cluster) client(t testing.TB) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(c.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: time.Minute}
}

// create POSTs obj as JSON to the API path as the administrator.
func (c *Cluster) create(t testing.TB, api *http.Client, path string, obj any) {
	t.Helper()
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", c.URL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := api.Do(req)
	if err != nil {
		t.Fatalf("testk8s: POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("testk8s: POST %s: %s %s", path, resp.Status, answer)
	}
}

// waitAvailable waits until the APIService name has the condition
// Available True, failing t with its last conditions and the logs if it
// does not in time.
func (c *Cluster) waitAvailable(t testing.TB, api *http.Client, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startPatience)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		c.failIfExited(t, "APIService "+name)
		req, _ := http.NewRequestWithContext(ctx, "GET", c.URL+"/apis/apiregistration.k8s.io/v1/apiservices/"+name, nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		var svc struct {
			Status struct {
				Conditions []struct{ Type, Status, Reason, Message string }
			}
		}
		if resp, err := api.Do(req); err != nil {
			last = err.Error()
		} else {
			err := json.NewDecoder(resp.Body).Decode(&svc)
			resp.Body.Close()
			last = fmt.Sprintf("%s %+v %v", resp.Status, svc.Status.Conditions, err)
			for _, cond := range svc.Status.Conditions {
				if cond.Type == "Available" && cond.Status == "True" {
					return
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("testk8s: gave up waiting for APIService %s to be Available (%s); last: %s%s", name, startPatience, last, c.logTails())
}
