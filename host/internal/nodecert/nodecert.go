// Package nodecert gives a kube32 node of a Kubernetes cluster an identity
// of its own there, as a kubelet's TLS bootstrap does (docs/kubernetes.md,
// "The node's identity"): a client certificate for the user
// system:node:<name> in group system:nodes, which kube-apiserver's Node
// authorizer and NodeRestriction admission hold to its own Node, its own
// Lease and the pods bound to it.
//
// The first certificate is asked for with a CertificateSigningRequest of
// signer kubernetes.io/kube-apiserver-client-kubelet, made with the
// credentials of the kubeconfig the node was given (the bootstrap
// identity: kube32-node's ServiceAccount, or an administrator's);
// kube-controller-manager approves it when that identity may create
// certificatesigningrequests/nodeclient, and signs it with the cluster CA.
// The key and certificate are kept in a folder and reused while valid;
// once abi.NodeCertRenewPercent of its validity has passed, the node asks
// for the next one as itself (certificatesigningrequests/selfnodeclient).
// Every request of the node goes through one transport that presents the
// current certificate and closes its connections when it changes.
package nodecert

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/connrotation"

	"github.com/kube32/kube32/abi"
)

// Options say which node asks and where it keeps what it gets.
type Options struct {
	// Bootstrap reaches the cluster as the identity that asks for the
	// node's first certificate (a kubeconfig's).
	Bootstrap *rest.Config
	// Node is the Node's name: the certificate is for system:node:<Node>.
	Node string
	// Dir keeps the key and certificate (File), reused on the next start
	// while valid; "" keeps them in memory only.
	Dir string
	// Logf receives a line for each certificate asked for, and for a
	// request that waits for approval (nil: none).
	Logf func(format string, args ...any)
}

// Credentials are a node's identity on the cluster: Config acts as
// system:node:<name> with the current certificate.
type Credentials struct {
	opts   Options
	config *rest.Config
	dialer *connrotation.Dialer

	mu   sync.Mutex
	cert *tls.Certificate // the current one; its Leaf is parsed
}

// Bootstrap returns the node's credentials: the certificate kept in
// opts.Dir while kube-apiserver accepts it, else a new one asked for with
// the bootstrap identity. It fails, saying what the cluster lacks, when
// the certificate is not issued or the cluster does not treat its user as
// a node.
func Bootstrap(ctx context.Context, opts Options) (*Credentials, error) {
	if opts.Bootstrap == nil || opts.Node == "" {
		return nil, errors.New("node credentials: no bootstrap kubeconfig or no node name")
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	c := &Credentials{opts: opts}
	var err error
	if c.config, c.dialer, err = nodeConfig(opts.Bootstrap, c.current); err != nil {
		return nil, fmt.Errorf("node %s credentials: %w", opts.Node, err)
	}
	kept, err := load(opts.Dir, opts.Node, time.Now())
	if err != nil {
		opts.Logf("node %s: %v; asking for a new certificate", opts.Node, err)
	}
	if kept != nil {
		c.set(kept)
		switch err := c.probe(ctx); {
		case err == nil:
			if renewDue(kept.Leaf, time.Now()) {
				// Past its renewal point but still valid: ask as the node,
				// as Run would; on failure the bootstrap identity asks.
				if err := c.renew(ctx, c.config); err == nil {
					return c, nil
				}
				break
			}
			return c, nil
		case apierrors.IsUnauthorized(err):
			opts.Logf("node %s: kube-apiserver no longer accepts the certificate in %s; asking for a new one", opts.Node, opts.Dir)
		default:
			return nil, fmt.Errorf("node %s: %w", opts.Node, err)
		}
	}
	if err := c.renew(ctx, opts.Bootstrap); err != nil {
		return nil, fmt.Errorf("node %s: %w", opts.Node, err)
	}
	if err := c.probe(ctx); apierrors.IsUnauthorized(err) {
		return nil, fmt.Errorf("node %s: kube-apiserver does not accept the certificate the cluster signed (%v): its --client-ca-file must hold kube-controller-manager's --cluster-signing-cert-file", opts.Node, err)
	} else if err != nil {
		return nil, fmt.Errorf("node %s: %w", opts.Node, err)
	}
	return c, nil
}

// Config reaches the cluster as the node, always with its current
// certificate.
func (c *Credentials) Config() *rest.Config { return rest.CopyConfig(c.config) }

// Certificate is the node's current certificate.
func (c *Credentials) Certificate() *x509.Certificate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cert.Leaf
}

// Run renews the certificate, as the node, once abi.NodeCertRenewPercent
// of its validity has passed, trying again every abi.NodeCertRetry after
// a failure, until ctx ends.
func (c *Credentials) Run(ctx context.Context) {
	for {
		wait := time.Until(renewAt(c.Certificate()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if err := c.renew(ctx, c.config); err != nil && ctx.Err() == nil {
			c.opts.Logf("node %s: renewing its certificate: %v; trying again in %s", c.opts.Node, err, abi.NodeCertRetry)
			select {
			case <-ctx.Done():
				return
			case <-time.After(abi.NodeCertRetry):
			}
		}
	}
}

// renew asks, as the user of cfg, for a new certificate, keeps it and
// makes it the current one.
func (c *Credentials) renew(ctx context.Context, cfg *rest.Config) error {
	cert, err := request(ctx, cfg, c.opts.Node, c.opts.Logf)
	if err != nil {
		return err
	}
	if err := save(c.opts.Dir, cert); err != nil {
		return err
	}
	c.set(cert)
	c.opts.Logf("node %s: certificate for %s valid until %s", c.opts.Node, cert.Leaf.Subject.CommonName, cert.Leaf.NotAfter.Format(time.RFC3339))
	return nil
}

// set makes cert the current certificate and closes the connections made
// with the previous one, so that the next requests present it.
func (c *Credentials) set(cert *tls.Certificate) {
	c.mu.Lock()
	had := c.cert != nil
	c.cert = cert
	c.mu.Unlock()
	if had {
		c.dialer.CloseAll()
	}
}

// current is the certificate presented to kube-apiserver.
func (c *Credentials) current() *tls.Certificate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cert
}

// renewAt is when a certificate is renewed: once abi.NodeCertRenewPercent
// of its validity has passed.
func renewAt(cert *x509.Certificate) time.Time {
	life := cert.NotAfter.Sub(cert.NotBefore)
	return cert.NotBefore.Add(life / 100 * abi.NodeCertRenewPercent)
}

// renewDue reports whether cert is past its renewal point at now.
func renewDue(cert *x509.Certificate, now time.Time) bool {
	return !now.Before(renewAt(cert))
}
