package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kube32/kube32/cli/internal/apptest"
	"github.com/kube32/kube32/host"
)

// testTarget is a running app that kube32 test sends its requests to
// instead of starting a cluster: one kube32 deploy put on a Kubernetes
// cluster (with Kubeconfig), or any address.
type testTarget struct {
	URL        string // --ingress or --url: the base of the requests, {{ingress}}
	Kubeconfig string // the cluster the pod and event asserts read; "" = none
	Context    string // its context; "" = the current one
	Namespace  string // where every pod and event reference is read; "" = as it says
	ingress    string // --ingress, before checkTarget takes it as URL
}

// addTargetFlags adds test's flags of a running app.
func addTargetFlags(f *pflag.FlagSet, t *testTarget) {
	f.StringVar(&t.ingress, "ingress", "", "test a deployed app: the address of its Ingress (kube32 deploy prints it), with --kubeconfig")
	f.StringVar(&t.URL, "url", "", "test the app at this address (a serve, a board) instead of starting a cluster; pod and event asserts need --kubeconfig")
	f.StringVar(&t.Kubeconfig, "kubeconfig", "", "with --ingress: the kubeconfig of the cluster the app runs on, which pod and event asserts read")
	f.StringVar(&t.Context, "context", "", "context of the kubeconfig to use (default its current context)")
	f.StringVarP(&t.Namespace, "namespace", "n", "", "with --kubeconfig: read every pod and event there (as kube32 deploy --namespace put the app)")
}

// localClusterFlags are test's flags that start or shape its own cluster,
// which a run against a running app has none of.
var localClusterFlags = []string{"nodes", "filename", "images", "watch", "ingress-port", "board"}

// checkTarget checks the flags of a running app and folds --ingress into
// URL.
func checkTarget(f *pflag.FlagSet, t *testTarget) error {
	if t.ingress != "" && t.URL != "" {
		return &usageError{fmt.Errorf("--ingress and --url: give the address once")}
	}
	if t.ingress != "" {
		t.URL = t.ingress
	}
	if t.URL == "" {
		for _, name := range []string{"kubeconfig", "context", "namespace"} {
			if f.Changed(name) {
				return &usageError{fmt.Errorf("--%s reads the cluster of a deployed app: give its address with --ingress URL", name)}
			}
		}
		return nil
	}
	for _, name := range localClusterFlags {
		if f.Changed(name) {
			return &usageError{fmt.Errorf("--%s shapes the cluster kube32 test starts; with --ingress or --url it tests a running app", name)}
		}
	}
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return &usageError{fmt.Errorf("--ingress/--url %q: want http://HOST[:PORT][/PATH] or https://…", t.URL)}
	}
	if t.Kubeconfig == "" && (t.Context != "" || t.Namespace != "") {
		return &usageError{fmt.Errorf("--context and --namespace say which cluster to read: give --kubeconfig too")}
	}
	return nil
}

// runTargetTests runs files against the running app of opts.Target.
func runTargetTests(ctx context.Context, opts testOptions, files []*apptest.File) error {
	t := opts.Target
	var state apptest.State
	what := "the app at " + t.URL
	if t.Kubeconfig != "" {
		cfg, err := host.KubernetesConfig(t.Kubeconfig, t.Context)
		if err != nil {
			return err
		}
		if state, err = apptest.KubernetesState(cfg, t.Namespace); err != nil {
			return err
		}
		what += " on the cluster of " + t.Kubeconfig
	}
	fmt.Fprintf(opts.Serve.IO.ErrOut, "Testing %s\n", what)
	return runTestFiles(ctx, opts, strings.TrimSuffix(t.URL, "/"), state, files)
}
