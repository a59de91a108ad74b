package kubelet

import "net/http"

// ResourceMetrics: placeholder until the resource metrics land (merge).
func (k *Kubelet) ResourceMetrics() http.Handler { return nil }
