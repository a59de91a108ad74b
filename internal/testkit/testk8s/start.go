package testk8s

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// startPatience bounds each wait of Start: the control plane is up in a
// few seconds on an idle machine, far longer on a loaded one.
const startPatience = 3 * time.Minute

// NodeMonitorGracePeriod is how long kube-controller-manager waits for a
// Node's Lease to be renewed before it marks the Node NotReady.
const NodeMonitorGracePeriod = 12 * time.Second

// FrontProxyClient is the name in the client certificate kube-apiserver
// shows aggregated API servers.
const FrontProxyClient = "front-proxy-client"

// Cluster is a running control plane.
type Cluster struct {
	// Kubeconfig is the path of a kubeconfig for a cluster administrator
	// (group system:masters), in a temporary folder of the test.
	Kubeconfig string
	// URL is kube-apiserver's https:// address; CAFile its CA (which also
	// signed the client certificate it shows kubelets), Token the
	// administrator's bearer token.
	URL, CAFile, Token string
	// CA is that CA, with which kube-controller-manager also signs
	// kubelets' (kube32 nodes') client certificates.
	CA *testtls.CA
	// Dir holds the data and the logs (etcd.log, kube-apiserver.log,
	// kube-controller-manager.log, kube-scheduler.log).
	Dir string

	// exited is closed, for each program by name, when it exits.
	exited map[string]chan struct{}
}

// Start builds or reuses the binaries and runs etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler on free loopback ports until
// the test ends. It
// returns once kube-apiserver is ready and the default ServiceAccount of
// namespace default exists (the API server refuses pods before it does).
func Start(t testing.TB) *Cluster {
	t.Helper()
	bins := Binaries(t)
	start := time.Now()
	dir := t.TempDir()
	c := &Cluster{Dir: dir, Token: randomHex(t, 16), exited: map[string]chan struct{}{}}

	// Credentials: a CA and a serving certificate for 127.0.0.1, the key
	// that signs service-account tokens, and a static token for the admin.
	ca := testtls.NewCA(t)
	c.CA = ca
	c.CAFile = filepath.Join(dir, "ca.pem")
	writeFile(t, c.CAFile, ca.PEM)
	// kube-controller-manager signs the CSRs of kubelets' client
	// certificates (kube32 nodes') with the same CA.
	caKeyFile := filepath.Join(dir, "ca-key.pem")
	writeFile(t, caKeyFile, ca.KeyPEM(t))
	serving := ca.Issue(t, testtls.Leaf{IPs: []string{"127.0.0.1"}, DNSNames: []string{"localhost"}})
	certFile, keyFile := writeCert(t, dir, "apiserver", serving)
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	saKeyFile, saPubFile := filepath.Join(dir, "sa-key.pem"), filepath.Join(dir, "sa-pub.pem")
	writeFile(t, saKeyFile, privateKeyPEM(t, saKey))
	// --service-account-key-file reads public keys, or private keys only in
	// the older PEM types, not PKCS #8: give it the public key.
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, saPubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}))
	// kube-apiserver's client certificates: the one it shows kubelets
	// (kube32 nodes verify it against CAFile) and the one it shows
	// aggregated API servers such as metrics-server.
	kubeletClientCert, kubeletClientKey := writeCert(t, dir, "kubelet-client", ca.Issue(t, testtls.Leaf{Client: true, CommonName: "kube-apiserver-kubelet-client", Organizations: []string{"system:masters"}}))
	proxyClientCert, proxyClientKey := writeCert(t, dir, "front-proxy-client", ca.Issue(t, testtls.Leaf{Client: true, CommonName: FrontProxyClient}))
	tokenFile := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokenFile, []byte(c.Token+`,kube32-test-admin,kube32-test-admin,"system:masters"`+"\n"))

	// etcd.
	etcdClient, etcdPeer := freePort(t), freePort(t)
	etcdURL := "http://127.0.0.1:" + etcdClient
	peerURL := "http://127.0.0.1:" + etcdPeer
	run(t, c, "etcd", bins.Etcd,
		"--name=kube32-test",
		"--data-dir="+filepath.Join(dir, "etcd-data"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kube32-test="+peerURL,
		"--unsafe-no-fsync", // test data: durability is not wanted, speed is
		"--log-level=warn",
	)
	waitHTTP(t, c, "etcd /health", http.DefaultClient, etcdURL+"/health", "")

	// kube-apiserver.
	apiPort := freePort(t)
	c.URL = "https://127.0.0.1:" + apiPort
	run(t, c, "kube-apiserver", bins.APIServer,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+apiPort,
		"--cert-dir="+filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file="+certFile,
		"--tls-private-key-file="+keyFile,
		"--client-ca-file="+c.CAFile,
		"--token-auth-file="+tokenFile,
		// Nodes as a real cluster holds them: each to its own Node, Lease
		// and pods (the Node authorizer and NodeRestriction).
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saPubFile,
		"--service-account-signing-key-file="+saKeyFile,
		// On 127.0.0.1 the endpoint reconciler refuses the loopback address
		// for the kubernetes Service's endpoints; nothing here needs them.
		"--endpoint-reconciler-type=none",
		// Kubelets (kube32 nodes) are reached at the address their Node
		// gives first in kube-apiserver's default order (Hostname, then
		// InternalIP, ...) and shown this client certificate.
		"--kubelet-client-certificate="+kubeletClientCert,
		"--kubelet-client-key="+kubeletClientKey,
		// The aggregation layer, for metrics-server.
		"--requestheader-client-ca-file="+c.CAFile,
		"--requestheader-allowed-names="+FrontProxyClient,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+proxyClientCert,
		"--proxy-client-key-file="+proxyClientKey,
	)
	api := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}}}
	waitHTTP(t, c, "kube-apiserver /readyz", api, c.URL+"/readyz", c.Token)

	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	writeFile(t, c.Kubeconfig, kubeconfig(c.CAFile, c.URL, "kube32-test-admin", "token: "+c.Token))

	// kube-controller-manager: it creates the default ServiceAccounts and
	// runs Deployments, ReplicaSets, EndpointSlices, node lifecycle, ...
	run(t, c, "kube-controller-manager", bins.ControllerManager,
		"--kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+freePort(t),
		"--cert-dir="+filepath.Join(dir, "controller-manager-certs"),
		"--leader-elect=false",
		"--service-account-private-key-file="+saKeyFile,
		"--root-ca-file="+c.CAFile,
		"--use-service-account-credentials=false",
		// A node whose Lease stops being renewed turns NotReady after
		// NodeMonitorGracePeriod (kube's default is 50 s).
		"--node-monitor-period=1s",
		"--node-monitor-grace-period="+NodeMonitorGracePeriod.String(),
		// Its csrapproving controller approves the CSRs of nodes' client
		// certificates (kubelets' TLS bootstrap) and csrsigning signs them.
		"--cluster-signing-cert-file="+c.CAFile,
		"--cluster-signing-key-file="+caKeyFile,
	)
	waitHTTP(t, c, "the default ServiceAccount", api, c.URL+"/api/v1/namespaces/default/serviceaccounts/default", c.Token)

	// kube-scheduler: without it no pod is ever bound to a node.
	schedPort := freePort(t)
	run(t, c, "kube-scheduler", bins.Scheduler,
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig,
		"--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+schedPort,
		"--cert-dir="+filepath.Join(dir, "scheduler-certs"),
		"--leader-elect=false",
	)
	// Its serving certificate is one it makes itself, in its cert dir; only
	// its readiness is read over it, so it is not verified.
	sched := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	waitHTTP(t, c, "kube-scheduler /readyz", sched, "https://127.0.0.1:"+schedPort+"/readyz", "")
	t.Logf("testk8s: control plane ready at %s in %s", c.URL, time.Since(start).Round(100*time.Millisecond))
	return c
}

// kubeconfig is a kubeconfig for the cluster at url whose one user, name,
// authenticates with the given "key: value" lines.
func kubeconfig(caFile, url, name string, auth ...string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kube32-test
  cluster:
    certificate-authority: %s
    server: %s
users:
- name: %s
  user:
    %s
contexts:
- name: kube32-test
  context:
    cluster: kube32-test
    user: %s
current-context: kube32-test
`, caFile, url, name, strings.Join(auth, "\n    "), name))
}

// run starts a program with its output in Dir/<name>.log, and kills it when
// the test ends.
func run(t testing.TB, c *Cluster, name, path string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(c.Dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = c.Dir
	cmd.Stdout, cmd.Stderr = log, log
	DieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("testk8s: start %s: %v", name, err)
	}
	exited := make(chan struct{})
	c.exited[name] = exited
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		log.Close()
	})
}

// waitHTTP waits until GET url answers 200, failing t with the last answer
// and the tails of the logs if it does not in time.
func waitHTTP(t testing.TB, c *Cluster, what string, client *http.Client, url, token string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startPatience)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		c.failIfExited(t, what)
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("testk8s: gave up waiting for %s (%s); last answer: %s%s", what, startPatience, last, c.logTails())
}

// failIfExited fails t with the logs when a program of the cluster has
// exited while the test waited for what.
func (c *Cluster) failIfExited(t testing.TB, what string) {
	t.Helper()
	for name, exited := range c.exited {
		select {
		case <-exited:
			t.Fatalf("testk8s: %s exited while waiting for %s%s", name, what, c.logTails())
		default:
		}
	}
}

// logTails returns the end of each program's log, for a failure message.
func (c *Cluster) logTails() string {
	var s string
	for _, name := range append(programs[:len(programs):len(programs)], "metrics-server") {
		if b, err := os.ReadFile(filepath.Join(c.Dir, name+".log")); err == nil {
			s += fmt.Sprintf("\n--- %s.log (end) ---\n%s", name, tail(string(b), 30))
		}
	}
	return s
}

// freePort returns a TCP port free on 127.0.0.1 right now.
func freePort(t testing.TB) string {
	t.Helper()
	return strconv.Itoa(testenv.FreePort(t, "127.0.0.1"))
}

func privateKeyPEM(t testing.TB, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// writeCert writes cert and its key as PEM files in dir.
func writeCert(t testing.TB, dir, name string, cert tls.Certificate) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writeFile(t, certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}))
	writeFile(t, keyFile, privateKeyPEM(t, cert.PrivateKey))
	return certFile, keyFile
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// CertKubeconfig writes a kubeconfig for the cluster whose user presents
// the client certificate in certFile with the key in keyFile (a kube32
// node's, which may be one file), in a temporary folder of the test, and
// returns its path.
func (c *Cluster) CertKubeconfig(t testing.TB, certFile, keyFile string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	writeFile(t, path, kubeconfig(c.CAFile, c.URL, "kube32-test-cert", "client-certificate: "+certFile, "client-key: "+keyFile))
	return path
}

// TokenKubeconfig writes a kubeconfig for the cluster whose user presents
// token (a ServiceAccount's, from kubectl create token), in a temporary
// folder of the test, and returns its path.
func (c *Cluster) TokenKubeconfig(t testing.TB, token string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	writeFile(t, path, kubeconfig(c.CAFile, c.URL, "kube32-test-admin", "token: "+strings.TrimSpace(token)))
	return path
}
