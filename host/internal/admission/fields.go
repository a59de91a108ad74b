package admission

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// The fields each kind can be selected by, beyond metadata.name and
// metadata.namespace, as in kube-apiserver, and their values.

var podFieldLabels = []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
	"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}

func podFields(o *corev1.Pod) fields.Set {
	return fields.Set{
		"spec.nodeName":            o.Spec.NodeName,
		"spec.restartPolicy":       string(o.Spec.RestartPolicy),
		"spec.schedulerName":       o.Spec.SchedulerName,
		"spec.serviceAccountName":  o.Spec.ServiceAccountName,
		"spec.hostNetwork":         "false",
		"status.phase":             string(o.Status.Phase),
		"status.podIP":             o.Status.PodIP,
		"status.nominatedNodeName": o.Status.NominatedNodeName,
	}
}

var eventFieldLabels = []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
	"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
	"reportingComponent", "source", "type"}

func eventFields(o *corev1.Event) fields.Set {
	return fields.Set{
		"involvedObject.kind":            o.InvolvedObject.Kind,
		"involvedObject.namespace":       o.InvolvedObject.Namespace,
		"involvedObject.name":            o.InvolvedObject.Name,
		"involvedObject.uid":             string(o.InvolvedObject.UID),
		"involvedObject.apiVersion":      o.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": o.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       o.InvolvedObject.FieldPath,
		"reason":                         o.Reason,
		"reportingComponent":             o.ReportingController,
		"source":                         o.Source.Component,
		"type":                           o.Type,
	}
}

var namespaceFieldLabels = []string{"status.phase"}

func namespaceFields(o *corev1.Namespace) fields.Set {
	return fields.Set{"status.phase": string(o.Status.Phase)}
}

var nodeFieldLabels = []string{"spec.unschedulable"}

func nodeFields(o *corev1.Node) fields.Set {
	unschedulable := "false"
	if o.Spec.Unschedulable {
		unschedulable = "true"
	}
	return fields.Set{"spec.unschedulable": unschedulable}
}
