package host

import (
	"context"

	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/k8sinstall"
)

// InstallOnKubernetes applies what kube32 needs on a Kubernetes cluster
// (docs/kubernetes-install.md) with server-side apply, reporting one line
// per object: "<kind.group/name> created", "unchanged" or "configured".
func InstallOnKubernetes(ctx context.Context, cfg *rest.Config, report func(line string)) error {
	return k8sinstall.Apply(ctx, cfg, report)
}

// KubernetesInstallYAML is what InstallOnKubernetes applies, as a YAML
// stream.
func KubernetesInstallYAML() ([]byte, error) { return k8sinstall.YAML() }

// KubernetesInstallNames names what InstallOnKubernetes applies, in order,
// as kubectl names objects.
func KubernetesInstallNames() []string {
	var out []string
	for _, u := range k8sinstall.Objects() {
		out = append(out, k8sinstall.Name(u))
	}
	return out
}
