// Package downward gives a container the values of its env valueFrom as a
// kubelet does (the Downward API, docs/kubectl.md): fields of its Pod and
// the memory of its containers. It also names what it can resolve, so that
// admission refuses every other source before a pod reaches a node.
package downward

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// FieldPaths are the fieldRef paths a container's env may name, sorted as
// kube-apiserver lists them; metadata.labels['<key>'] and
// metadata.annotations['<key>'] come besides.
var FieldPaths = []string{
	"metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.serviceAccountName",
	"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
}

// SubscriptedPaths are the fieldRef paths that take a ['<key>'].
var SubscriptedPaths = []string{"metadata.annotations", "metadata.labels"}

// Resources are the resourceFieldRef resources a container's env may name.
var Resources = []string{"limits.memory", "requests.memory"}

// MemoryDivisors are the divisors kube-apiserver accepts for memory.
var MemoryDivisors = []string{"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}

// SplitSubscript splits "metadata.labels['app']" into "metadata.labels"
// and "app"; ok is false for a path without a subscript.
func SplitSubscript(fieldPath string) (path, key string, ok bool) {
	rest, found := strings.CutSuffix(fieldPath, "']")
	if !found {
		return fieldPath, "", false
	}
	path, key, found = strings.Cut(rest, "['")
	if !found || path == "" {
		return fieldPath, "", false
	}
	return path, key, true
}

// Node is what the pod's node adds: its IP, which is also every pod's IP
// on it, and the memory limit of a container that sets none.
type Node struct {
	IP                 string
	DefaultMemoryLimit int64
}

// Value is the value of one env valueFrom of container c of pod p, started
// on node. Admission has refused any source it does not resolve; such a
// source (a pod admitted by an older kube32) is an error.
func Value(p *corev1.Pod, c *corev1.Container, from *corev1.EnvVarSource, node Node) (string, error) {
	switch {
	case from.FieldRef != nil && from.ResourceFieldRef == nil && from.ConfigMapKeyRef == nil && from.SecretKeyRef == nil && from.FileKeyRef == nil:
		return fieldValue(p, from.FieldRef.FieldPath, node)
	case from.ResourceFieldRef != nil && from.FieldRef == nil && from.ConfigMapKeyRef == nil && from.SecretKeyRef == nil && from.FileKeyRef == nil:
		return resourceValue(p, c, from.ResourceFieldRef, node)
	}
	return "", fmt.Errorf("valueFrom: kube32 resolves exactly one fieldRef or resourceFieldRef")
}

func fieldValue(p *corev1.Pod, fieldPath string, node Node) (string, error) {
	if path, key, ok := SplitSubscript(fieldPath); ok {
		switch path {
		case "metadata.labels":
			return p.Labels[key], nil
		case "metadata.annotations":
			return p.Annotations[key], nil
		}
	}
	switch fieldPath {
	case "metadata.name":
		return p.Name, nil
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.uid":
		return string(p.UID), nil
	case "spec.nodeName":
		return p.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs":
		// A pod's IP is its node's, and a node has one: each list is
		// that one address (a kubelet joins several with commas).
		return node.IP, nil
	}
	return "", fmt.Errorf("fieldRef.fieldPath: %q is not supported", fieldPath)
}

// resourceValue is the container's memory limit or request divided by the
// divisor (1 when unset) and rounded up, as a kubelet computes it. A
// container without a limit has the node's default, as a kubelet uses the
// node's allocatable; a request left unset is the limit when one is set
// (kube-apiserver's defaulting), else 0.
func resourceValue(p *corev1.Pod, c *corev1.Container, ref *corev1.ResourceFieldSelector, node Node) (string, error) {
	if ref.ContainerName != "" {
		c = nil
		for i := range p.Spec.Containers {
			if p.Spec.Containers[i].Name == ref.ContainerName {
				c = &p.Spec.Containers[i]
			}
		}
		if c == nil {
			return "", fmt.Errorf("resourceFieldRef.containerName: container %q not found", ref.ContainerName)
		}
	}
	limit, hasLimit := c.Resources.Limits[corev1.ResourceMemory]
	var value int64
	switch ref.Resource {
	case "limits.memory":
		value = node.DefaultMemoryLimit
		if hasLimit {
			value = limit.Value()
		}
	case "requests.memory":
		if request, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
			value = request.Value()
		} else if hasLimit {
			value = limit.Value()
		}
	default:
		return "", fmt.Errorf("resourceFieldRef.resource: %q is not supported", ref.Resource)
	}
	divisor := int64(1)
	if !ref.Divisor.IsZero() {
		divisor = ref.Divisor.Value()
	}
	if divisor <= 0 {
		return "", fmt.Errorf("resourceFieldRef.divisor: %s is not positive", ref.Divisor.String())
	}
	return strconv.FormatInt((value+divisor-1)/divisor, 10), nil
}
