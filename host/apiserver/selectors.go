package apiserver

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// selectorsOf parses the labelSelector and fieldSelector of a list or
// watch into one match function; a bad selector is a 400 naming it.
func selectorsOf(r *http.Request, res *resource) (func(runtime.Object) bool, error) {
	q := r.URL.Query()
	ls, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		return nil, badRequest("unable to parse requirement: labelSelector %q: %v", q.Get("labelSelector"), err)
	}
	fs, err := fields.ParseSelector(q.Get("fieldSelector"))
	if err != nil {
		return nil, badRequest("invalid field selector %q: %v", q.Get("fieldSelector"), err)
	}
	supported := fieldLabels(res)
	for _, req := range fs.Requirements() {
		if !supported[req.Field] {
			return nil, badRequest("field label not supported: %s", req.Field)
		}
	}
	if ls.Empty() && fs.Empty() {
		return func(runtime.Object) bool { return true }, nil
	}
	return func(o runtime.Object) bool {
		m := o.(metav1.Object)
		return ls.Matches(labels.Set(m.GetLabels())) && (fs.Empty() || fs.Matches(fieldSet(o)))
	}, nil
}

// fieldLabels are the fields a resource can be selected by, as in
// kube-apiserver.
func fieldLabels(res *resource) map[string]bool {
	out := map[string]bool{"metadata.name": true, "metadata.namespace": true}
	var more []string
	switch res.Kind {
	case "Pod":
		more = []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
			"spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}
	case "Event":
		more = []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
			"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
			"reportingComponent", "source", "type"}
	case "Namespace":
		more = []string{"status.phase"}
	case "Node":
		more = []string{"spec.unschedulable"}
	}
	for _, f := range more {
		out[f] = true
	}
	return out
}

func fieldSet(o runtime.Object) fields.Set {
	m := o.(metav1.Object)
	set := fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}
	switch o := o.(type) {
	case *corev1.Pod:
		set["spec.nodeName"] = o.Spec.NodeName
		set["spec.restartPolicy"] = string(o.Spec.RestartPolicy)
		set["spec.schedulerName"] = o.Spec.SchedulerName
		set["spec.serviceAccountName"] = o.Spec.ServiceAccountName
		set["spec.hostNetwork"] = "false"
		set["status.phase"] = string(o.Status.Phase)
		set["status.podIP"] = o.Status.PodIP
		set["status.nominatedNodeName"] = o.Status.NominatedNodeName
	case *corev1.Event:
		set["involvedObject.kind"] = o.InvolvedObject.Kind
		set["involvedObject.namespace"] = o.InvolvedObject.Namespace
		set["involvedObject.name"] = o.InvolvedObject.Name
		set["involvedObject.uid"] = string(o.InvolvedObject.UID)
		set["involvedObject.apiVersion"] = o.InvolvedObject.APIVersion
		set["involvedObject.resourceVersion"] = o.InvolvedObject.ResourceVersion
		set["involvedObject.fieldPath"] = o.InvolvedObject.FieldPath
		set["reason"] = o.Reason
		set["reportingComponent"] = o.ReportingController
		set["source"] = o.Source.Component
		set["type"] = o.Type
	case *corev1.Namespace:
		set["status.phase"] = string(o.Status.Phase)
	case *corev1.Node:
		set["spec.unschedulable"] = "false"
		if o.Spec.Unschedulable {
			set["spec.unschedulable"] = "true"
		}
	}
	return set
}
