package servingcert

import (
	"crypto/tls"
	"fmt"
	"time"
)

// ForNode makes the serving certificate of a node's kubelet API
// (host/internal/kubeletapi) for hosts, its IP addresses and names: signed
// by a CA made for it alone and not kept, as a kubelet that is given no
// certificate signs its own. kube-apiserver does not verify a kubelet's
// certificate unless given --kubelet-certificate-authority
// (docs/kubeletapi.md).
func ForNode(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		return tls.Certificate{}, fmt.Errorf("kubelet API certificate: no host to make it for")
	}
	now := time.Now()
	ca, err := newPair(nil, now, caCert)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := newPair(ca, now, serverCert, hosts...)
	if err != nil {
		return tls.Certificate{}, err
	}
	return leaf.tls, nil
}
