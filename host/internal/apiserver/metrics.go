package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/metricsv1beta1"
	"github.com/kube32/kube32/host/internal/kinds"
)

// The Metrics API (metrics.k8s.io/v1beta1, docs/kubectl.md), as
// metrics-server serves it: on each read the API server asks every node
// for its stats on abi.NodeStatsPath of its kubelet endpoint (the pod port
// its Node reports), the same way for the control plane and for workers in
// this process or another, and the metrics kinds' strategies make their
// objects of them (host/internal/admission/computed.go). A node that does
// not answer has no metrics, as with metrics-server; its pods neither.

// statsTimeout bounds one node's answer.
const statsTimeout = 2 * time.Second

var statsClient = &http.Client{Timeout: statsTimeout}

// nodeStats asks every node for its stats at once.
func (s *Server) nodeStats() []metricsv1beta1.NodeStats {
	nodes, _ := s.cfg.Store.ListShared(kinds.Node, "")
	out := make([]*metricsv1beta1.NodeStats, len(nodes))
	var wg sync.WaitGroup
	for i, o := range nodes {
		addr, ok := kubeletAddress(o.(*corev1.Node))
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st, err := fetchStats(addr); err == nil && st.Node.Name == o.(*corev1.Node).Name {
				out[i] = st
			}
		}()
	}
	wg.Wait()
	var stats []metricsv1beta1.NodeStats
	for _, st := range out {
		if st != nil {
			stats = append(stats, *st)
		}
	}
	return stats
}

// kubeletAddress is where a Node says its kubelet listens: its
// InternalIP and its kubelet endpoint's port.
func kubeletAddress(n *corev1.Node) (string, bool) {
	port := n.Status.DaemonEndpoints.KubeletEndpoint.Port
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && port > 0 {
			return net.JoinHostPort(a.Address, strconv.Itoa(int(port))), true
		}
	}
	return "", false
}

func fetchStats(addr string) (*metricsv1beta1.NodeStats, error) {
	ctx, cancel := context.WithTimeout(context.Background(), statsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+abi.NodeStatsPath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := statsClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("node stats at %s: %s", addr, resp.Status)
	}
	st := &metricsv1beta1.NodeStats{}
	return st, json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 4<<20)).Decode(st)
}
