// Package testk8s gives tests a real Kubernetes control plane on loopback:
// etcd, kube-apiserver, kube-controller-manager and kube-scheduler built
// from the Go module proxy (Binaries) and started with a kubeconfig for
// kubectl and client-go (Start), and metrics-server (MetricsServer)
// serving the Metrics API through kube-apiserver's aggregation layer
// (StartMetricsServer). kube-apiserver authorizes as a production
// cluster's does (--authorization-mode=Node,RBAC, NodeRestriction
// admission), reaches kubelets by its default address types, and
// kube-controller-manager approves and signs kubelets' client
// certificates (a kube32 node's TLS bootstrap). The builds are slow when cold (about a quarter of
// an hour on two cores), so their binaries live in the user cache
// directory, outside the repository, and later runs reuse them. A test that
// cannot build them skips on a developer's machine and fails in CI
// (CI=true), like any missing tool.
//
// The cache directory (KUBE32_K8S_CACHE, else the user cache directory's
// kube32/) holds k8s-<version>/src/{kube,etcd,metrics-server}, the
// generated wrapper modules, and k8s-<version>/bin, the binaries with a
// STAMP naming their recipe (STAMP.metrics-server for metrics-server). A
// cold build does not fit go test's default 10-minute timeout, so a test
// run that finds no binaries skips (fails in CI) unless given -timeout 60m;
// .ci/run builds them first that way. Measured on the 2-core development
// machine, shared with other work, with modules already downloaded: 13m40s
// with an empty go build cache (12m26s for the Kubernetes binaries, 55s for
// etcd), under a minute to relink from a warm build cache, and 4-7 s to
// start all four. metrics-server v0.8.0: 22 min cold on the same machine
// loaded by three other builds (11.6 min of CPU time, so about 6 min on two
// idle cores) plus 26 s to download its modules, 26 s to rebuild from a warm
// build cache; it serves the Metrics API about 1 s after it starts, in
// about 70 MiB of RSS.
package testk8s

import (
	"runtime"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// The versions built. Kubernetes' own module keeps its k8s.io/* modules in
// staging folders that its module zip leaves out, so the wrapper module
// replaces each of them with the published k8s.io/X StagingVersion.
const (
	KubernetesVersion = "v1.37.2"
	StagingVersion    = "v0.37.2"
	EtcdVersion       = "v3.7.3"
)

// CacheDirEnv names a variable that, when set, is the directory holding the
// builds instead of the user cache directory (CI may point it at its cache).
const CacheDirEnv = "KUBE32_K8S_CACHE"

// cacheDir is where the wrapper modules and binaries of this version live.
func cacheDir() (string, error) {
	return testenv.ToolCacheDir(CacheDirEnv, "k8s-"+KubernetesVersion)
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	testenv.Unavailable(t, "real Kubernetes control plane", format, args...)
}

// exe adds the platform's executable suffix.
func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
