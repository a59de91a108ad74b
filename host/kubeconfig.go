package host

import (
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/kubeconfig"
)

// A KubeconfigEntry is the cluster, user and context serve writes;
// a KubeconfigClaim holds it until released.
type (
	KubeconfigEntry = kubeconfig.Entry
	KubeconfigClaim = kubeconfig.Claim
)

// KubeconfigName is the default name of the cluster, user and context.
const KubeconfigName = kubeconfig.Name

// KubeconfigPath is the kubeconfig serve writes: explicit when given, else
// KUBECONFIG's first file, else ~/.kube/config.
func KubeconfigPath(explicit string) string { return kubeconfig.Path(explicit) }

// TakeKubeconfig writes e to the kubeconfig at path until the claim is released.
func TakeKubeconfig(path string, e KubeconfigEntry) (*KubeconfigClaim, error) {
	return kubeconfig.Take(path, e)
}

// WriteKubeconfig adds (or replaces) e in the kubeconfig at path.
func WriteKubeconfig(path string, e KubeconfigEntry) error { return kubeconfig.Write(path, e) }

// KubernetesConfig reads how to reach a Kubernetes cluster from the
// kubeconfig at path ("" as kubectl finds it), in context ("" for its
// current one).
func KubernetesConfig(path, context string) (*rest.Config, error) {
	return kubeconfig.RESTConfig(path, context)
}
