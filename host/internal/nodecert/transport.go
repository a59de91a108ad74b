package nodecert

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/connrotation"
)

// nodeConfig is bootstrap's cluster (its server, CA and client settings)
// reached with the certificate current returns instead of bootstrap's
// credentials, through a transport whose connections the dialer closes
// when the certificate changes (as a kubelet's rotating transport).
func nodeConfig(bootstrap *rest.Config, current func() *tls.Certificate) (*rest.Config, *connrotation.Dialer, error) {
	cfg := rest.AnonymousClientConfig(bootstrap)
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tlsConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		if c := current(); c != nil {
			return c, nil
		}
		return &tls.Certificate{}, nil
	}
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	dialer := connrotation.NewDialer(dial)
	proxy := cfg.Proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	cfg.Transport = utilnet.SetTransportDefaults(&http.Transport{
		Proxy: proxy, TLSClientConfig: tlsConfig, DialContext: dialer.DialContext,
		TLSHandshakeTimeout: 10 * time.Second, MaxIdleConnsPerHost: 25,
	})
	// The transport carries the TLS settings and the dialer: client-go
	// refuses a custom transport beside its own.
	cfg.TLSClientConfig, cfg.Dial, cfg.Proxy = rest.TLSClientConfig{}, nil, nil
	return cfg, dialer, nil
}

// probeTimeout bounds the read of the node's own Node that checks its
// credentials.
const probeTimeout = 30 * time.Second

// probe reads the node's own Node as the node: the read its Node
// authorizer allows whether or not the Node exists. It returns
// kube-apiserver's 401 as is, so that a certificate it no longer accepts
// is replaced, and turns its 403 into what the cluster lacks.
func (c *Credentials) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	client, err := restClient(c.config)
	if err != nil {
		return err
	}
	err = client.Get().AbsPath("/api/v1/nodes", c.opts.Node).Do(ctx).Error()
	switch {
	case err == nil, apierrors.IsNotFound(err):
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("kube-apiserver does not let %s read its own Node (%v): the cluster must authorize nodes with the Node authorizer (kube-apiserver --authorization-mode=Node,RBAC; docs/kubernetes.md)", userOf(c.opts.Node), err)
	default:
		return err
	}
}
