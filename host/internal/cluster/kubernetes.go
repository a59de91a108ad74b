package cluster

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/kubelet"
	"github.com/kube32/kube32/host/internal/kubeletapi"
	"github.com/kube32/kube32/host/internal/nodecert"
)

// KubernetesOptions make a worker a node of a Kubernetes cluster
// (docs/kubernetes.md).
type KubernetesOptions struct {
	// Config reaches the cluster's API server (from a kubeconfig).
	Config *rest.Config
	// KubeletPort is the kubelet API's port on the node IP (0: a free
	// one); KubeletListener, when set, is used instead.
	KubeletPort     int
	KubeletListener net.Listener
	// ClientCAs verify the client certificates of the kubelet API's
	// callers (kube-apiserver's); nil: only bearer tokens are accepted.
	ClientCAs *x509.CertPool
	// EgressCA is a PEM file of roots trusted for the pods' https:// calls
	// besides the system's, as serve's --egress-ca.
	EgressCA string
	// CertDir keeps the node's client certificate (host/internal/nodecert),
	// reused on the next start while valid; "" keeps it in memory only.
	CertDir string
	// HostnameOverride, when set, is the Node's Hostname address (a
	// kubelet's --hostname-override); else the machine's name when it
	// resolves to the node IP (kubelet.NodeHostname).
	HostnameOverride string
}

// nodeCredentials asks for the node's own identity on the cluster (a
// kubelet's TLS bootstrap, host/internal/nodecert), with opts.Kubernetes'
// Config as the bootstrap identity, and returns opts acting as the node.
func nodeCredentials(ctx context.Context, opts WorkerOptions) (WorkerOptions, *nodecert.Credentials, error) {
	k := *opts.Kubernetes
	creds, err := nodecert.Bootstrap(ctx, nodecert.Options{Bootstrap: k.Config, Node: opts.Name, Dir: k.CertDir, Logf: opts.Logf})
	if err != nil {
		return opts, nil, err
	}
	k.Config = creds.Config()
	opts.Kubernetes = &k
	return opts, creds, nil
}

// kubernetesNode is what the kubelet of a node of a Kubernetes cluster
// adds to its Node: the kubelet API's port and the Hostname address.
func kubernetesNode(ctx context.Context, opts WorkerOptions, kubeletPort int) *kubelet.KubernetesNode {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	hostname, err := kubelet.NodeHostname(ctx, opts.Kubernetes.HostnameOverride, opts.NodeIP)
	if err != nil {
		logf("node %s: %v", opts.Name, err)
	}
	return &kubelet.KubernetesNode{KubeletPort: kubeletPort, Hostname: hostname}
}

// kubeletAPI is the kubelet API of a node of a Kubernetes cluster: where
// kube-apiserver asks for logs and port-forwards, and metrics-server for
// the node's figures (host/internal/kubeletapi).
type kubeletAPI struct {
	listener net.Listener
	port     int
	server   *kubeletapi.Server
}

func listenKubeletAPI(opts WorkerOptions) (*kubeletAPI, error) {
	k := opts.Kubernetes
	l := k.KubeletListener
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", net.JoinHostPort(opts.NodeIP, strconv.Itoa(k.KubeletPort))); err != nil {
			return nil, fmt.Errorf("node %s: kubelet API port: %w (choose another with --kubelet-port)", opts.Name, err)
		}
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	n, _ := strconv.Atoi(port)
	return &kubeletAPI{listener: l, port: n}, nil
}

// prepare makes the kubelet API of k, before the node registers.
func (a *kubeletAPI) prepare(k *kubelet.Kubelet, opts WorkerOptions) (err error) {
	a.server, err = kubeletapi.New(kubeletapi.Config{
		NodeName: opts.Name, NodeIP: opts.NodeIP, Pods: k, ResourceMetrics: k.ResourceMetrics(),
		ClientCAs: opts.Kubernetes.ClientCAs, Reviews: opts.Kubernetes.Config,
		Conns: opts.conns, Limits: opts.limits,
	})
	if err != nil {
		return fmt.Errorf("node %s: %w", opts.Name, err)
	}
	return nil
}

// serve serves the kubelet API until close.
func (a *kubeletAPI) serve(wg *sync.WaitGroup) {
	wg.Add(1)
	go func() { defer wg.Done(); _ = a.server.Serve(a.listener) }()
}

// close stops the kubelet API (nil: none).
func (a *kubeletAPI) close() {
	if a == nil {
		return
	}
	if a.server != nil {
		a.server.Close()
	}
	a.listener.Close()
}

// KubeletURL is the kubelet API of a node of a Kubernetes cluster; "" for
// a worker of a kube32 control plane.
func (w *Worker) KubeletURL() string {
	if w.kubeletAPI == nil {
		return ""
	}
	return "https://" + w.kubeletAPI.listener.Addr().String()
}

// kubernetesAPIHostPort splits a Kubernetes API server's URL (https, or
// a bare host:port as kubeconfigs may give) for
// KUBERNETES_SERVICE_HOST/_PORT.
func kubernetesAPIHostPort(server string) (string, int, error) {
	if !strings.Contains(server, "://") {
		server = "https://" + server
	}
	u, err := url.Parse(server)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", 0, fmt.Errorf("kubeconfig: API server URL %q: want https://HOST[:PORT]", server)
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = 443
		if u.Scheme == "http" {
			port = 80
		}
	}
	return u.Hostname(), port, nil
}
