// Package kubeconfig writes the `kube32` cluster, user and context into a
// kubeconfig file with client-go's clientcmd, so that `kubectl --context
// kube32` reaches `kube32 serve` while every other context stays as it was.
package kubeconfig

import (
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Name is the name of the cluster, user and context serve writes.
const Name = "kube32"

// Entry is what the kube32 context points at.
type Entry struct {
	Server string // the API server URL, e.g. http://127.0.0.1:6443
	Token  string // the bearer token; "" for none
}

// Path is the file Write writes: explicit when given (--kubeconfig), else
// the first file of $KUBECONFIG, else ~/.kube/config, as kubectl picks.
func Path(explicit string) string {
	if explicit != "" {
		return explicit
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if files := rules.Precedence; len(files) > 0 {
		return rules.GetDefaultFilename()
	}
	return clientcmd.RecommendedHomeFile
}

// Write adds (or replaces) the kube32 cluster, user and context in the
// kubeconfig file at path, creating it when needed. The current context
// is set to kube32 only when the file had none, so a user's current
// context is never changed behind their back.
func Write(path string, e Entry) error {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		cfg = clientcmdapi.NewConfig()
		if !isNotExist(path) {
			return fmt.Errorf("kubeconfig %s: %w", path, err)
		}
	}
	cluster := clientcmdapi.NewCluster()
	cluster.Server = e.Server
	cfg.Clusters[Name] = cluster
	user := clientcmdapi.NewAuthInfo()
	user.Token = e.Token
	cfg.AuthInfos[Name] = user
	ctx := clientcmdapi.NewContext()
	ctx.Cluster, ctx.AuthInfo, ctx.Namespace = Name, Name, "default"
	cfg.Contexts[Name] = ctx
	if cfg.CurrentContext == "" {
		cfg.CurrentContext = Name
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return nil
}
