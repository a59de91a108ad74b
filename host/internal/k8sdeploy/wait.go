package k8sdeploy

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/abi"
)

// pollInterval is how often the waits look at the cluster again.
const pollInterval = 500 * time.Millisecond

// waitRollouts waits until every Deployment has rolled out as `kubectl
// rollout status` judges it, saying on Progress what each waits for when
// that changes. Past the timeout it fails, naming what each Deployment
// and its pods wait for.
func waitRollouts(ctx context.Context, c clients, deployments []*unstructured.Unstructured, opts ApplyOptions) error {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	said := map[string]string{}
	for {
		var waiting []string
		for _, u := range deployments {
			d, err := getAs[appsv1.Deployment](ctx, c, resources["Deployment"], u.GetNamespace(), u.GetName())
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				return fmt.Errorf("%s: %w", name(u), err)
			}
			done, msg, err := rolloutStatus(d)
			if err != nil {
				return fmt.Errorf("%s: %w%s", name(u), err, podStates(ctx, c, d))
			}
			if msg != said[name(u)] {
				said[name(u)] = msg
				opts.Progress(name(u) + ": " + msg)
			}
			if !done {
				waiting = append(waiting, name(u)+": "+msg+podStates(ctx, c, d))
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not rolled out after %s:\n  %s", opts.Timeout, strings.Join(waiting, "\n  "))
		case <-time.After(pollInterval):
		}
	}
}

// rolloutStatus is kubectl rollout status's judgement of a Deployment:
// done, or what it waits for; an error when its progress deadline passed.
func rolloutStatus(d *appsv1.Deployment) (bool, string, error) {
	if d.Generation > d.Status.ObservedGeneration {
		return false, "waiting for the Deployment controller", nil
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == "ProgressDeadlineExceeded" {
			return false, "", fmt.Errorf("exceeded its progress deadline: %s", c.Message)
		}
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	st := d.Status
	switch {
	case st.UpdatedReplicas < want:
		return false, fmt.Sprintf("%d of %d new replicas updated", st.UpdatedReplicas, want), nil
	case st.Replicas > st.UpdatedReplicas:
		return false, fmt.Sprintf("%d old replicas pending termination", st.Replicas-st.UpdatedReplicas), nil
	case st.AvailableReplicas < st.UpdatedReplicas:
		return false, fmt.Sprintf("%d of %d updated replicas available", st.AvailableReplicas, st.UpdatedReplicas), nil
	}
	return true, fmt.Sprintf("rolled out (%d of %d replicas available)", st.AvailableReplicas, want), nil
}

// podStates says why the Deployment's pods are not ready, for a failed
// wait: "; pod api-7d9-x: Pending: ImagePullBackOff: …".
func podStates(ctx context.Context, c clients, d *appsv1.Deployment) string {
	selected, err := listAs[corev1.Pod](ctx, c, podResource, d.Namespace, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(d.Spec.Selector)})
	if err != nil {
		return ""
	}
	var out strings.Builder
	for _, p := range selected {
		if why := notReady(&p); why != "" {
			fmt.Fprintf(&out, "; pod %s: %s", p.Name, why)
		}
	}
	return out.String()
}

// notReady says why a pod is not ready, "" when it is.
func notReady(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return ""
		}
	}
	why := string(p.Status.Phase)
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue && c.Message != "" {
			why += ": " + c.Reason + ": " + c.Message
		}
	}
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && w.Reason != "" {
			why += ": " + w.Reason
			if w.Message != "" {
				why += ": " + w.Message
			}
		}
	}
	return why
}

// waitPodsGone waits until no pod carries the app's label.
func waitPodsGone(ctx context.Context, c clients, opts ApplyOptions) error {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	said := -1
	for {
		left, err := listAs[corev1.Pod](ctx, c, podResource, metav1.NamespaceAll, metav1.ListOptions{LabelSelector: abi.LabelDeployApp + "=" + opts.App})
		if err != nil {
			return fmt.Errorf("listing the pods of app %s: %w", opts.App, err)
		}
		n := len(left)
		if n == 0 {
			return nil
		}
		if n != said {
			said = n
			opts.Progress(fmt.Sprintf("waiting for %d pods of app %s to stop", n, opts.App))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d pods of app %s still there after %s", n, opts.App, opts.Timeout)
		case <-time.After(pollInterval):
		}
	}
}

// reportAddresses reports where each Ingress of class kube32 is served,
// as the kube32 Ingress controller writes it to the Ingress's status,
// waiting abi.DeployAddressWait at most for it.
func reportAddresses(ctx context.Context, c clients, ingresses []*unstructured.Unstructured, report func(string)) {
	ctx, cancel := context.WithTimeout(ctx, abi.DeployAddressWait)
	defer cancel()
	for _, u := range ingresses {
		var ing networkingv1.Ingress
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ing) != nil {
			continue
		}
		if ing.Spec.IngressClassName != nil && *ing.Spec.IngressClassName != abi.IngressClassName {
			continue
		}
		for {
			cur, err := getAs[networkingv1.Ingress](ctx, c, resources["Ingress"], ing.Namespace, ing.Name)
			if err == nil && len(cur.Status.LoadBalancer.Ingress) > 0 {
				report(fmt.Sprintf("%s at %s serves %s", name(u), address(cur.Status.LoadBalancer.Ingress[0]), strings.Join(routes(cur), ", ")))
				break
			}
			select {
			case <-ctx.Done():
				report(fmt.Sprintf("%s has no address yet: is kube32 ingress --kubeconfig running? (docs/kubernetes.md)", name(u)))
			case <-time.After(pollInterval):
				continue
			}
			break
		}
	}
}

func address(lb networkingv1.IngressLoadBalancerIngress) string {
	if lb.IP != "" {
		return lb.IP
	}
	return lb.Hostname
}

// routes lists an Ingress's hosts and paths: "/echo", "shop.example/api".
func routes(ing *networkingv1.Ingress) []string {
	var out []string
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			out = append(out, r.Host+p.Path)
		}
	}
	if len(out) == 0 {
		out = []string{"its default backend"}
	}
	return out
}
