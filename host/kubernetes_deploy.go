package host

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/k8sdeploy"
	"github.com/kube32/kube32/host/internal/k8sinstall"
)

// DeployOptions say how a project's objects become a Kubernetes
// cluster's (kube32 deploy, docs/kubernetes.md).
type DeployOptions = k8sdeploy.Options

// DeployApplyOptions say how DeployToKubernetes and DeleteFromKubernetes
// report and how long they wait.
type DeployApplyOptions = k8sdeploy.ApplyOptions

// DeployObjects are the objects kube32 deploy applies for a project's
// manifests: each Pod a Deployment of runtime class kube32, the pushed
// references in place of the image trees' names.
func DeployObjects(objs []manifest.Object, opts DeployOptions) ([]*unstructured.Unstructured, error) {
	return k8sdeploy.Objects(objs, opts)
}

// DeployYAML is objs as a YAML stream that kubectl apply accepts.
func DeployYAML(objs []*unstructured.Unstructured) ([]byte, error) { return k8sdeploy.YAML(objs) }

// KubernetesName is how kubectl names an object: deployment.apps/api.
func KubernetesName(u *unstructured.Unstructured) string { return k8sinstall.Name(u) }

// DeployToKubernetes applies objs with server-side apply, prunes what an
// earlier deploy of the app made and objs lack, waits for the rollouts
// and reports each Ingress's address.
func DeployToKubernetes(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured, opts DeployApplyOptions) error {
	return k8sdeploy.Apply(ctx, cfg, objs, opts)
}

// DeleteFromKubernetes removes everything kube32 deploy applied for the
// app and waits until its pods are gone.
func DeleteFromKubernetes(ctx context.Context, cfg *rest.Config, opts DeployApplyOptions) error {
	return k8sdeploy.Delete(ctx, cfg, opts)
}

// CheckKubernetesInstall fails, saying to run kube32 install, when the
// cluster lacks what kube32 install applies and kube32 deploy needs.
func CheckKubernetesInstall(ctx context.Context, cfg *rest.Config) error {
	return k8sdeploy.CheckInstalled(ctx, cfg)
}
