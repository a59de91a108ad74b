package host

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/k8sdeploy"
	"github.com/kube32/kube32/host/internal/k8sinstall"
)

// DeployOptions say how a project's objects become a Kubernetes
// cluster's (kube32 deploy, docs/kubernetes.md).
type DeployOptions struct {
	App       string // kube32.yaml's name: the value of abi.LabelDeployApp on everything applied
	Namespace string // when set, every object's namespace, whatever its manifest says
	// Replicas of a Pod's Deployment without abi.AnnotationReplicas; 0 means 1.
	Replicas int32
	// Images and Bundles map what the project builds (wasm://… images,
	// StaticBundle names) to the references they were pushed to.
	Images, Bundles map[string]string
}

// DeployApplyOptions say how DeployToKubernetes and DeleteFromKubernetes
// report and how long they wait.
type DeployApplyOptions struct {
	App string // the app: abi.LabelDeployApp's value
	// Timeout bounds the waits; 0 = abi.DeployTimeoutDefault.
	Timeout time.Duration
	// Report gets a line per object, as kubectl's, and each Ingress's
	// address; Progress the lines of the waits and the warnings.
	Report, Progress func(line string)
}

// DeployObjects are the objects kube32 deploy applies for a project's
// manifests: each Pod a Deployment of runtime class kube32, the pushed
// references in place of the image trees' names.
func DeployObjects(objs []manifest.Object, opts DeployOptions) ([]*unstructured.Unstructured, error) {
	return k8sdeploy.Objects(objs, k8sdeploy.Options{App: opts.App, Namespace: opts.Namespace, Replicas: opts.Replicas,
		Images: opts.Images, Bundles: opts.Bundles})
}

// DeployYAML is objs as a YAML stream that kubectl apply accepts.
func DeployYAML(objs []*unstructured.Unstructured) ([]byte, error) { return k8sdeploy.YAML(objs) }

// KubernetesName is how kubectl names an object: deployment.apps/api.
func KubernetesName(u *unstructured.Unstructured) string { return k8sinstall.Name(u) }

// DeployToKubernetes applies objs with server-side apply, prunes what an
// earlier deploy of the app made and objs lack, waits for the rollouts
// and reports each Ingress's address.
func DeployToKubernetes(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured, opts DeployApplyOptions) error {
	return k8sdeploy.Apply(ctx, cfg, objs, k8sdeploy.ApplyOptions(opts))
}

// DeleteFromKubernetes removes everything kube32 deploy applied for the
// app and waits until its pods are gone.
func DeleteFromKubernetes(ctx context.Context, cfg *rest.Config, opts DeployApplyOptions) error {
	return k8sdeploy.Delete(ctx, cfg, k8sdeploy.ApplyOptions(opts))
}

// CheckKubernetesInstall fails, saying to run kube32 install, when the
// cluster lacks what kube32 install applies and kube32 deploy needs.
func CheckKubernetesInstall(ctx context.Context, cfg *rest.Config) error {
	return k8sdeploy.CheckInstalled(ctx, cfg)
}
