package nodecert

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
)

// The subject every node certificate has: kube-controller-manager's
// approver and signer take a kube-apiserver-client-kubelet request only
// for these (and kube-apiserver's Node authorizer knows a node by them).
const (
	nodeUserPrefix = "system:node:"
	nodesGroup     = "system:nodes"
)

// userOf is the user name of node's certificate.
func userOf(node string) string { return nodeUserPrefix + node }

// csrPoll is how often a request's CSR is read until it is signed.
const csrPoll = 500 * time.Millisecond

// pendingHint is how long a CSR waits before the node says how to approve
// it by hand.
const pendingHint = 10 * time.Second

var (
	csrScheme = runtime.NewScheme()
	csrCodecs = serializer.NewCodecFactory(csrScheme)
)

func init() {
	if err := certificatesv1.AddToScheme(csrScheme); err != nil {
		panic(err)
	}
	metav1.AddToGroupVersion(csrScheme, schema.GroupVersion{Version: "v1"})
}

// restClient is a client of certificates.k8s.io/v1 over cfg (AbsPath
// reaches the other groups).
func restClient(cfg *rest.Config) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &certificatesv1.SchemeGroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = csrCodecs.WithoutConversion()
	c.ContentType = runtime.ContentTypeJSON
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	return rest.RESTClientFor(c)
}

// request asks the cluster of cfg, as cfg's user, for a certificate of
// node: a new key, a CSR of signer kube-apiserver-client-kubelet, then
// the certificate once kube-controller-manager (or an administrator) has
// approved it and its signer has signed it, within abi.NodeCSRPatience.
func request(ctx context.Context, cfg *rest.Config, node string, logf func(string, ...any)) (*tls.Certificate, error) {
	client, err := restClient(cfg)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: userOf(node), Organization: []string{nodesGroup}},
	}, key)
	if err != nil {
		return nil, err
	}
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "node-csr-"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: certificatesv1.KubeAPIServerClientKubeletSignerName,
			Usages:     []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
		},
	}
	created := &certificatesv1.CertificateSigningRequest{}
	if err := client.Post().Resource("certificatesigningrequests").Body(csr).Do(ctx).Into(created); err != nil {
		if apierrors.IsForbidden(err) {
			return nil, fmt.Errorf("creating a CertificateSigningRequest for %s: %v: the kubeconfig's user may not (give the node a kubeconfig of the kube32-node ServiceAccount that kube32 install makes; docs/kubernetes.md)", userOf(node), err)
		}
		return nil, fmt.Errorf("creating a CertificateSigningRequest for %s: %w", userOf(node), err)
	}
	certPEM, err := waitSigned(ctx, client, created.Name, logf)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, pemKey(key))
	if err != nil {
		return nil, fmt.Errorf("CertificateSigningRequest %s: the issued certificate: %w", created.Name, err)
	}
	if err := checkCert(cert.Leaf, node, time.Now()); err != nil {
		return nil, fmt.Errorf("CertificateSigningRequest %s: the issued certificate: %w", created.Name, err)
	}
	return &cert, nil
}

// waitSigned reads the CSR name until it has a certificate, and fails when
// it is denied or failed, or when abi.NodeCSRPatience passes.
func waitSigned(ctx context.Context, client *rest.RESTClient, name string, logf func(string, ...any)) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, abi.NodeCSRPatience)
	defer cancel()
	start := time.Now()
	hinted := false
	for {
		csr := &certificatesv1.CertificateSigningRequest{}
		err := client.Get().Resource("certificatesigningrequests").Name(name).Do(ctx).Into(csr)
		if err == nil {
			if len(csr.Status.Certificate) > 0 {
				return csr.Status.Certificate, nil
			}
			for _, c := range csr.Status.Conditions {
				if (c.Type == certificatesv1.CertificateDenied || c.Type == certificatesv1.CertificateFailed) && c.Status == corev1.ConditionTrue {
					return nil, fmt.Errorf("CertificateSigningRequest %s was %s: %s %s", name, c.Type, c.Reason, c.Message)
				}
			}
			if !hinted && time.Since(start) > pendingHint {
				hinted = true
				logf("CertificateSigningRequest %s waits to be approved and signed: kube-controller-manager approves a node's request when its user may create certificatesigningrequests/nodeclient (kube32 install grants it to kube32-node) and signs it with --cluster-signing-cert-file; or approve it: kubectl certificate approve %s", name, name)
			}
		}
		select {
		case <-ctx.Done():
			why := "not signed"
			if err != nil {
				why = err.Error()
			}
			return nil, fmt.Errorf("CertificateSigningRequest %s: %s after %s (is it approved? kubectl get csr %s; does kube-controller-manager sign kubernetes.io/kube-apiserver-client-kubelet requests?)", name, why, time.Since(start).Round(time.Second), name)
		case <-time.After(csrPoll):
		}
	}
}

// checkCert checks that cert is node's and valid at now.
func checkCert(cert *x509.Certificate, node string, now time.Time) error {
	switch {
	case cert.Subject.CommonName != userOf(node):
		return fmt.Errorf("it is for %q, not %s", cert.Subject.CommonName, userOf(node))
	case len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != nodesGroup:
		return fmt.Errorf("its groups are %q, not [%s]", cert.Subject.Organization, nodesGroup)
	case now.Before(cert.NotBefore):
		return fmt.Errorf("not valid before %s", cert.NotBefore.Format(time.RFC3339))
	case !now.Before(cert.NotAfter):
		return fmt.Errorf("expired %s", cert.NotAfter.Format(time.RFC3339))
	}
	return nil
}

// pemKey is key as a PEM block.
func pemKey(key *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		panic(err) // a P-256 key always marshals
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

// certPEM is cert's chain as PEM blocks.
func certPEM(cert *tls.Certificate) []byte {
	var b bytes.Buffer
	for _, der := range cert.Certificate {
		_ = pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	return b.Bytes()
}
