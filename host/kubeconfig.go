package host

import (
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/internal/kubeconfig"
)

// A KubeconfigEntry is the cluster, user and context serve writes.
type KubeconfigEntry struct {
	Context string // the name of the context, its cluster and its user; "" = KubeconfigName
	Server  string // the API server URL, e.g. https://127.0.0.1:6444
	Token   string // the bearer token; "" for none
	// CA is the PEM certificate of the CA the server's certificate chains
	// to; nil for none.
	CA []byte
	// ClientCert and ClientKey (PEM) are the user's client certificate
	// and key; nil for none.
	ClientCert, ClientKey []byte
}

// Name is the name of the entry's context, cluster and user.
func (e KubeconfigEntry) Name() string { return kubeconfig.Entry(e).Name() }

// A KubeconfigClaim holds an entry in a kubeconfig until released.
type KubeconfigClaim struct{ c *kubeconfig.Claim }

// Replaced is the API URL of the live serve whose context the claim took
// over; "" when there was none.
func (c *KubeconfigClaim) Replaced() string { return c.c.Replaced }

// Release gives the context back to what it pointed at before.
func (c *KubeconfigClaim) Release() error { return c.c.Release() }

// KubeconfigName is the default name of the cluster, user and context.
const KubeconfigName = kubeconfig.Name

// KubeconfigPath is the kubeconfig serve writes: explicit when given, else
// KUBECONFIG's first file, else ~/.kube/config.
func KubeconfigPath(explicit string) string { return kubeconfig.Path(explicit) }

// TakeKubeconfig writes e to the kubeconfig at path until the claim is released.
func TakeKubeconfig(path string, e KubeconfigEntry) (*KubeconfigClaim, error) {
	c, err := kubeconfig.Take(path, kubeconfig.Entry(e))
	if err != nil {
		return nil, err
	}
	return &KubeconfigClaim{c: c}, nil
}

// WriteKubeconfig adds (or replaces) e in the kubeconfig at path.
func WriteKubeconfig(path string, e KubeconfigEntry) error {
	return kubeconfig.Write(path, kubeconfig.Entry(e))
}

// KubernetesConfig reads how to reach a Kubernetes cluster from the
// kubeconfig at path ("" as kubectl finds it), in context ("" for its
// current one).
func KubernetesConfig(path, context string) (*rest.Config, error) {
	return kubeconfig.RESTConfig(path, context)
}
