package kubelet

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/bundler/images"
	"github.com/kube32/kube32/host/pod"
)

// podConfig turns a Pod's first container into a host/pod configuration: its
// module and bundle from the node's image trees, its environment, memory
// limit, capabilities and restart policy.
func (k *Kubelet) podConfig(p *corev1.Pod) (pod.Config, *problem) {
	c := p.Spec.Containers[0]
	cfg := pod.Config{
		Namespace:      p.Namespace,
		Name:           p.Name,
		Env:            k.environment(p, c),
		RestartPolicy:  string(p.Spec.RestartPolicy),
		HandlerTimeout: k.cfg.HandlerTimeout,
		Cache:          k.cfg.Cache,
	}
	if k.cfg.Log != nil {
		cfg.Log = func(line pod.Line) { k.cfg.Log(p.Namespace, p.Name, line) }
	}
	if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		cfg.MemoryLimit = limit.Value()
	}
	if sc := c.SecurityContext; sc != nil && sc.Capabilities != nil {
		for _, capability := range sc.Capabilities.Add {
			cfg.Capabilities = append(cfg.Capabilities, string(capability))
		}
	}
	module, assets, err := images.ResolveModule(k.cfg.Images, c.Image)
	if err != nil {
		return cfg, &problem{reason: "ErrImagePull", message: err.Error()}
	}
	cfg.Module, cfg.Assets = module, assets
	return cfg, nil
}

// environment is the container's own env followed by what the kubelet
// injects; a name the container sets itself wins.
func (k *Kubelet) environment(p *corev1.Pod, c corev1.Container) []pod.EnvVar {
	var env []pod.EnvVar
	own := map[string]bool{}
	for _, e := range c.Env {
		env = append(env, pod.EnvVar{Name: e.Name, Value: e.Value})
		own[e.Name] = true
	}
	injected := []pod.EnvVar{
		{Name: "KUBERNETES_SERVICE_HOST", Value: k.cfg.APIHost},
		{Name: "KUBERNETES_SERVICE_PORT", Value: strconv.Itoa(k.cfg.APIPort)},
	}
	for _, e := range injected {
		if !own[e.Name] {
			env = append(env, e)
		}
	}
	return env
}
