package kubeconfig

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfig reads how to reach a Kubernetes cluster from the kubeconfig
// at path (as kubectl reads it: "" is KUBECONFIG, else ~/.kube/config),
// in context (its current context when ""), for the commands that work on
// a Kubernetes cluster (docs/kubernetes.md). The error names the file and
// the context.
func RESTConfig(path, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		where := path
		if where == "" {
			where = Path("")
		}
		if context != "" {
			where += ", context " + context
		}
		return nil, fmt.Errorf("kubeconfig %s: %w", where, err)
	}
	return cfg, nil
}
