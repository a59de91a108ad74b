// Package kubeconfig writes the cluster, user and context of `kube32 serve`
// (all named `kube32` unless --context says otherwise) into a kubeconfig
// file with client-go's clientcmd, so that `kubectl --context kube32`
// reaches serve while every other context stays as it was.
package kubeconfig

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Name is the default name of the cluster, user and context serve writes.
const Name = "kube32"

// Entry is what a kube32 context points at.
type Entry struct {
	Context string // the name of the context, its cluster and its user; "" = Name
	Server  string // the API server URL, e.g. https://127.0.0.1:6444
	Token   string // the bearer token; "" for none
	// CA is the PEM certificate of the CA the server's certificate chains
	// to (the cluster's certificate-authority-data); nil for none.
	CA []byte
	// ClientCert and ClientKey (PEM) are the user's client certificate
	// and key; nil for none.
	ClientCert, ClientKey []byte
}

// Name is the name of the entry's context, cluster and user.
func (e Entry) Name() string {
	if e.Context == "" {
		return Name
	}
	return e.Context
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

// Write adds (or replaces) the entry's cluster, user and context in the
// kubeconfig file at path, creating it when needed. The current context
// is set to the entry's only when the file had none, so a user's current
// context is never changed behind their back.
func Write(path string, e Entry) error {
	cfg, err := load(path)
	if err != nil {
		return err
	}
	name := e.Name()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = e.Server
	cluster.CertificateAuthorityData = e.CA
	cfg.Clusters[name] = cluster
	user := clientcmdapi.NewAuthInfo()
	user.Token = e.Token
	user.ClientCertificateData, user.ClientKeyData = e.ClientCert, e.ClientKey
	cfg.AuthInfos[name] = user
	ctx := clientcmdapi.NewContext()
	ctx.Cluster, ctx.AuthInfo, ctx.Namespace = name, name, "default"
	cfg.Contexts[name] = ctx
	if cfg.CurrentContext == "" {
		cfg.CurrentContext = name
	}
	return save(path, cfg)
}

// read returns the entry the context named name points at, if there is one.
func read(path, name string) (Entry, bool, error) {
	cfg, err := load(path)
	if err != nil {
		return Entry{}, false, err
	}
	ctx := cfg.Contexts[name]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
		return Entry{}, false, nil
	}
	cluster := cfg.Clusters[ctx.Cluster]
	e := Entry{Context: name, Server: cluster.Server, CA: cluster.CertificateAuthorityData}
	if user := cfg.AuthInfos[ctx.AuthInfo]; user != nil {
		e.Token, e.ClientCert, e.ClientKey = user.Token, user.ClientCertificateData, user.ClientKeyData
	}
	return e, true, nil
}

// remove deletes the entry's cluster, user and context, and makes the file
// have no current context when it was the entry's.
func remove(path string, e Entry) error {
	cfg, err := load(path)
	if err != nil {
		return err
	}
	name := e.Name()
	delete(cfg.Clusters, name)
	delete(cfg.AuthInfos, name)
	delete(cfg.Contexts, name)
	if cfg.CurrentContext == name {
		cfg.CurrentContext = ""
	}
	return save(path, cfg)
}
