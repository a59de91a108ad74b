package k8sdeploy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/k8sinstall"
)

// resources are the resources of the kinds deploy applies.
var resources = map[string]schema.GroupVersionResource{
	"NetworkPolicy": {Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
	"Service":       {Version: "v1", Resource: "services"},
	"StaticBundle":  kube32v1.SchemeGroupVersion.WithResource(kube32v1.StaticBundles),
	"Deployment":    {Group: "apps", Version: "v1", Resource: "deployments"},
	"Ingress":       {Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"},
}

// ApplyOptions say how Apply and Delete report and how long they wait.
type ApplyOptions struct {
	App string // the app: abi.LabelDeployApp's value
	// Timeout bounds the wait for the rollouts (Apply) or for the pods to
	// go (Delete); 0 = abi.DeployTimeoutDefault.
	Timeout time.Duration
	// Report gets a line per object, as kubectl's: "deployment.apps/api
	// created", "… unchanged", "… configured", "… pruned", and each
	// Ingress's address.
	Report func(line string)
	// Progress gets the lines of the waits and the warnings.
	Progress func(line string)
}

type clients struct {
	dyn dynamic.Interface
}

func newClients(cfg *rest.Config) (clients, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 { // client-go's default, 5 a second, would make a deploy take seconds
		cfg.QPS, cfg.Burst = 50, 100
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return clients{}, err
	}
	return clients{dyn: dyn}, nil
}

func (c clients) resource(u *unstructured.Unstructured) dynamic.ResourceInterface {
	return c.dyn.Resource(resources[u.GetKind()]).Namespace(u.GetNamespace())
}

// Apply applies objs (Objects' answer) with server-side apply under
// abi.DeployFieldManager, prunes what carries the app's label and objs no
// longer hold, waits for the Deployments to roll out and reports each
// Ingress's address. A cluster without `kube32 install` is refused before
// anything is written.
func Apply(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured, opts ApplyOptions) error {
	opts = withDefaults(opts)
	c, err := installedClients(ctx, cfg)
	if err != nil {
		return err
	}
	checkNodes(ctx, c, objs, opts.Progress)
	if err := ensureNamespaces(ctx, c, objs, opts.Report); err != nil {
		return err
	}
	applied := map[string]bool{}
	var deployments, ingresses []*unstructured.Unstructured
	for _, u := range objs {
		r := c.resource(u)
		before, err := r.Get(ctx, u.GetName(), metav1.GetOptions{})
		existed := err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s: %w", name(u), err)
		}
		// Force: the objects are the project's, so a field someone else
		// changed since is taken back, as a GitOps controller would.
		after, err := r.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: abi.DeployFieldManager, Force: true})
		if err != nil {
			return fmt.Errorf("%s: %w", name(u), err)
		}
		switch {
		case !existed:
			opts.Report(name(u) + " created")
		case before.GetResourceVersion() == after.GetResourceVersion():
			opts.Report(name(u) + " unchanged")
		default:
			opts.Report(name(u) + " configured")
		}
		applied[key(u)] = true
		switch u.GetKind() {
		case "Deployment":
			deployments = append(deployments, after)
		case "Ingress":
			ingresses = append(ingresses, after)
		}
	}
	if err := prune(ctx, c, opts, func(u *unstructured.Unstructured) bool { return !applied[key(u)] }, "pruned"); err != nil {
		return err
	}
	if err := waitRollouts(ctx, c, deployments, opts); err != nil {
		return err
	}
	reportAddresses(ctx, c, ingresses, opts.Report)
	return nil
}

// Delete removes every object of the app (those carrying its label) and
// waits until its pods are gone.
func Delete(ctx context.Context, cfg *rest.Config, opts ApplyOptions) error {
	opts = withDefaults(opts)
	c, err := installedClients(ctx, cfg)
	if err != nil {
		return err
	}
	n := 0
	err = prune(ctx, c, opts, func(*unstructured.Unstructured) bool { n++; return true }, "deleted")
	if err != nil {
		return err
	}
	if n == 0 {
		opts.Report(fmt.Sprintf("nothing of app %s on the cluster", opts.App))
	}
	return waitPodsGone(ctx, c, opts)
}

func withDefaults(opts ApplyOptions) ApplyOptions {
	if opts.Timeout == 0 {
		opts.Timeout = abi.DeployTimeoutDefault
	}
	if opts.Report == nil {
		opts.Report = func(string) {}
	}
	if opts.Progress == nil {
		opts.Progress = func(string) {}
	}
	return opts
}

// name is how kubectl names an object: deployment.apps/api.
func name(u *unstructured.Unstructured) string { return k8sinstall.Name(u) }

// key identifies an object among those of the cluster.
func key(u *unstructured.Unstructured) string {
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

// CheckInstalled refuses a cluster without kube32 install, as Apply does
// first, so that deploy refuses before it builds and pushes.
func CheckInstalled(ctx context.Context, cfg *rest.Config) error {
	_, err := installedClients(ctx, cfg)
	return err
}

// installedClients are the clients of the cluster of cfg, once
// checkInstalled has found what kube32 install applies there.
func installedClients(ctx context.Context, cfg *rest.Config) (clients, error) {
	c, err := newClients(cfg)
	if err != nil {
		return clients{}, err
	}
	return c, checkInstalled(ctx, c)
}

// checkInstalled refuses a cluster that lacks what `kube32 install`
// applies and deploy needs: the RuntimeClass and IngressClass kube32 and
// the StaticBundle kind.
func checkInstalled(ctx context.Context, c clients) error {
	for _, u := range k8sinstall.Objects() {
		var gvr schema.GroupVersionResource
		switch u.GetKind() {
		case "RuntimeClass":
			gvr = schema.GroupVersionResource{Group: "node.k8s.io", Version: "v1", Resource: "runtimeclasses"}
		case "IngressClass":
			gvr = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingressclasses"}
		case "CustomResourceDefinition":
			gvr = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
		default:
			continue
		}
		_, err := c.dyn.Resource(gvr).Get(ctx, u.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("the cluster has no %s: run kube32 install --kubeconfig FILE first (docs/kubernetes-install.md)", name(u))
		}
		if err != nil {
			return fmt.Errorf("checking for %s, which kube32 install applies: %w", name(u), err)
		}
	}
	return nil
}

// checkNodes warns of Deployments whose pods no kube32 Node of the
// cluster can take (their node selector matches none), or of a cluster
// without kube32 nodes: their rollout would wait in vain. A user who may
// not list Nodes gets no warning.
func checkNodes(ctx context.Context, c clients, objs []*unstructured.Unstructured, warn func(string)) {
	kube32Nodes, err := listAs[corev1.Node](ctx, c, nodeResource, "", metav1.ListOptions{LabelSelector: "kubernetes.io/os=kube32"})
	if err != nil {
		return
	}
	if len(kube32Nodes) == 0 {
		warn("warning: the cluster has no kube32 Node yet: the pods wait until one joins (kube32 node --kubeconfig, docs/kubernetes.md)")
		return
	}
	for _, u := range objs {
		sel, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "spec", "nodeSelector")
		if u.GetKind() != "Deployment" || len(sel) == 0 {
			continue
		}
		if !slices.ContainsFunc(kube32Nodes, func(n corev1.Node) bool { return matches(sel, n.Labels) }) {
			warn(fmt.Sprintf("warning: %s: spec.template.spec.nodeSelector %v matches no kube32 Node of the cluster: its pods stay Pending until one does", name(u), sel))
		}
	}
}

func matches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if l, ok := labels[k]; !ok || l != v {
			return false
		}
	}
	return true
}

// ensureNamespaces creates the namespaces the objects need that the
// cluster lacks. Deploy never deletes a namespace.
func ensureNamespaces(ctx context.Context, c clients, objs []*unstructured.Unstructured, report func(string)) error {
	done := map[string]bool{}
	for _, u := range objs {
		ns := u.GetNamespace()
		if done[ns] {
			continue
		}
		done[ns] = true
		_, err := getAs[corev1.Namespace](ctx, c, namespaceResource, "", ns)
		if apierrors.IsNotFound(err) {
			err = create(ctx, c, namespaceResource, "", &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
				ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{FieldManager: abi.DeployFieldManager})
			if err == nil {
				report("namespace/" + ns + " created")
			}
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("namespace/%s: %w", ns, err)
		}
	}
	return nil
}

// prune deletes, in every namespace, the objects carrying the app's label
// for which stale says so, the Ingresses first and the NetworkPolicies
// last (a policy outlives the pods it holds), and reports each as verb.
func prune(ctx context.Context, c clients, opts ApplyOptions, stale func(*unstructured.Unstructured) bool, verb string) error {
	selector := abi.LabelDeployApp + "=" + opts.App
	for _, kind := range slices.Backward(order) {
		list, err := c.dyn.Resource(resources[kind]).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return fmt.Errorf("listing the %ss of app %s: %w", strings.ToLower(kind), opts.App, err)
		}
		for i := range list.Items {
			u := &list.Items[i]
			u.SetKind(kind) // a list's items may come without it
			if !stale(u) {
				continue
			}
			uid := u.GetUID()
			policy := metav1.DeletePropagationBackground
			err := c.resource(u).Delete(ctx, u.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &policy})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s: %w", name(u), err)
			}
			opts.Report(name(u) + " " + verb)
		}
	}
	return nil
}
