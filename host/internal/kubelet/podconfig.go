package kubelet

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/internal/downward"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
	"github.com/kube32/kube32/host/internal/static"
	"github.com/kube32/kube32/host/internal/store"
)

// podConfig turns a Pod's first container into a host/internal/pod configuration: its
// module and bundle from the node's image trees (or its module from the
// OCI images the node pulled, pull.go), its environment, memory
// limit, capabilities and restart policy; its lines go to r's log, and its
// refused calls to the node's log (refused.go). r holds a pulled image
// while the pod runs.
func (k *Kubelet) podConfig(p *corev1.Pod, r *running) (pod.Config, *problem) {
	c := p.Spec.Containers[0]
	log := r.log
	refused := &refusals{k: k, key: store.KeyOf(p)}
	env, err := k.environment(p, c)
	cfg := pod.Config{
		Namespace:          p.Namespace,
		Name:               p.Name,
		Env:                env,
		RestartPolicy:      string(p.Spec.RestartPolicy),
		HandlerTimeout:     k.cfg.HandlerTimeout,
		DefaultMemoryLimit: k.cfg.DefaultMemoryLimit,
		Cache:              k.cfg.Cache,
		Caller:             &refusalLogger{caller: k.caller, refusals: refused},
		Publisher:          k.publisher(),
		Log:                log.write,
		Refused:            refused.capability,
		Timing:             k.timing,
	}
	if err != nil {
		return cfg, &problem{reason: "CreateContainerConfigError", message: err.Error()}
	}
	if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		cfg.MemoryLimit = limit.Value()
	}
	if sc := c.SecurityContext; sc != nil && sc.Capabilities != nil {
		for _, capability := range sc.Capabilities.Add {
			cfg.Capabilities = append(cfg.Capabilities, string(capability))
		}
	}
	if images.IsOCI(c.Image) {
		img, ok := k.puller.Cached(c.Image)
		if !ok {
			return cfg, errNotPulled
		}
		r.image, cfg.Module = img, img.Module
		return cfg, nil
	}
	// A module or bundle the node cannot read is waited for (pull.go).
	module, assets, err := images.ResolveModule(k.cfg.Images, c.Image)
	if err != nil {
		return cfg, &problem{reason: reasonErrImagePull, message: err.Error()}
	}
	if assets != nil {
		// Like a StaticBundle, the image bundle is read once, symlinks left
		// out, so that k32_resp_asset cannot read outside it.
		if assets, err = static.Snapshot(assets); err != nil {
			return cfg, &problem{reason: reasonErrImagePull, message: "reading the image bundle: " + err.Error()}
		}
	}
	cfg.Module, cfg.Assets = module, assets
	return cfg, nil
}

// environment is the container's own env, valueFrom resolved by
// host/internal/downward, followed by what the kubelet injects: KUBERNETES_SERVICE_HOST/_PORT always, then the variables of the
// namespace's Services (host/internal/service.EnvVars), read as two lists, Services
// and Endpoints. The first of a repeated name wins, so a name the container
// sets itself wins over an injected one, and the API server's variables
// over those of a Service named "kubernetes".
func (k *Kubelet) environment(p *corev1.Pod, c corev1.Container) ([]pod.EnvVar, error) {
	var env []pod.EnvVar
	seen := map[string]bool{}
	add := func(name, value string) {
		if !seen[name] {
			seen[name] = true
			env = append(env, pod.EnvVar{Name: name, Value: value})
		}
	}
	node := downward.Node{IP: k.cfg.NodeIP, DefaultMemoryLimit: k.defaultMemoryLimit()}
	for i, e := range c.Env {
		value := e.Value
		if e.ValueFrom != nil {
			var err error
			if value, err = downward.Value(p, &c, e.ValueFrom, node); err != nil {
				return nil, fmt.Errorf("env[%d] (%s): %w", i, e.Name, err)
			}
		}
		add(e.Name, value)
	}
	add("KUBERNETES_SERVICE_HOST", k.cfg.APIHost)
	add("KUBERNETES_SERVICE_PORT", strconv.Itoa(k.cfg.APIPort))
	if k.cfg.Source == nil || !service.LinksEnabled(p) {
		return env, nil
	}
	services, endpoints := k.cfg.Source.NamespaceServices(p.Namespace)
	for _, e := range service.EnvVars(p, services, endpoints, k.cfg.NodeIP) {
		add(e.Name, e.Value)
	}
	return env, nil
}

// defaultMemoryLimit is the memory limit host/internal/pod gives a container that
// sets none.
func (k *Kubelet) defaultMemoryLimit() int64 {
	if k.cfg.DefaultMemoryLimit > 0 {
		return k.cfg.DefaultMemoryLimit
	}
	return pod.DefaultMemoryLimit
}
