package kubelet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"
)

// hostnameLookupTimeout bounds the lookup of a Hostname address.
const hostnameLookupTimeout = 5 * time.Second

// NodeHostname is the Hostname address of a node of a Kubernetes cluster
// with the InternalIP nodeIP (docs/kubernetes.md): override when it is
// given, as a kubelet's --hostname-override, with an error saying so when
// it does not resolve to nodeIP; else the machine's name when it resolves
// to nodeIP; else "", and the Node lists its InternalIP alone.
// kube-apiserver reaches a kubelet at its Hostname address before its
// InternalIP unless told otherwise, so a name must lead to the node.
func NodeHostname(ctx context.Context, override, nodeIP string) (string, error) {
	if override != "" {
		name := strings.ToLower(override)
		if err := resolvesTo(ctx, name, nodeIP); err != nil {
			return name, fmt.Errorf("--hostname-override %s: %w: kube-apiserver, which dials it first, cannot reach the node's kubelet API there", override, err)
		}
		return name, nil
	}
	name, err := os.Hostname()
	if err != nil || name == "" {
		return "", nil
	}
	name = strings.ToLower(name)
	if resolvesTo(ctx, name, nodeIP) != nil {
		return "", nil
	}
	return name, nil
}

// resolvesTo checks that name resolves to ip (among its addresses).
func resolvesTo(ctx context.Context, name, ip string) error {
	want, err := netip.ParseAddr(ip)
	if err != nil {
		return fmt.Errorf("node IP %q: %w", ip, err)
	}
	ctx, cancel := context.WithTimeout(ctx, hostnameLookupTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, name)
	if err != nil {
		return fmt.Errorf("it does not resolve: %w", err)
	}
	for _, a := range addrs {
		if got, err := netip.ParseAddr(a); err == nil && got.Unmap() == want.Unmap() {
			return nil
		}
	}
	return fmt.Errorf("it resolves to %s, not to the node IP %s", strings.Join(addrs, ", "), ip)
}
