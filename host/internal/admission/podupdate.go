package admission

import (
	"math"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// updatablePodSpecFields are what an update may change in a Pod's spec,
// in kube-apiserver's words: a running pod is not reconfigured in place
// (docs/kubectl.md, "Pod updates").
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validatePodUpdate checks a Pod update against the stored pod as
// kube-apiserver does: the spec may change only in the fields above.
func validatePodUpdate(pod, old *corev1.Pod) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	for _, list := range []struct {
		name     string
		new, old []corev1.Container
	}{{"containers", pod.Spec.Containers, old.Spec.Containers}, {"initContainers", pod.Spec.InitContainers, old.Spec.InitContainers}} {
		if len(list.new) != len(list.old) {
			return append(errs, field.Forbidden(spec.Child(list.name), "pod updates may not add or remove containers"))
		}
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		path := spec.Child("activeDeadlineSeconds")
		switch {
		case *d < 0 || *d > math.MaxInt32:
			return append(errs, field.Invalid(path, *d, validation.InclusiveRangeError(0, math.MaxInt32)))
		case old.Spec.ActiveDeadlineSeconds != nil && *old.Spec.ActiveDeadlineSeconds < *d:
			return append(errs, field.Invalid(path, *d, "must be less than or equal to previous value"))
		}
	} else if old.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), pod.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	errs = append(errs, validateOnlyAddedTolerations(pod.Spec.Tolerations, old.Spec.Tolerations, spec.Child("tolerations"))...)

	// Compare the spec with what may change taken from the old one.
	munged := pod.Spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Spec.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.Spec.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	munged.Tolerations = old.Spec.Tolerations
	munged.SchedulingGates = old.Spec.SchedulingGates
	if g, og := munged.TerminationGracePeriodSeconds, old.Spec.TerminationGracePeriodSeconds; og != nil && *og < 0 && g != nil && *g == 1 {
		munged.TerminationGracePeriodSeconds = og
	}
	if !apiequality.Semantic.DeepEqual(*munged, old.Spec) {
		errs = append(errs, field.Forbidden(spec, "pod updates may not change fields other than "+strings.Join(updatablePodSpecFields, ",")))
	}
	return errs
}

// validateOnlyAddedTolerations: an update may add tolerations and change
// an existing one's tolerationSeconds, nothing else.
func validateOnlyAddedTolerations(tolerations, old []corev1.Toleration, path *field.Path) field.ErrorList {
	for _, o := range old {
		found := false
		for _, t := range tolerations {
			same := o
			same.TolerationSeconds = t.TolerationSeconds
			if reflect.DeepEqual(same, t) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(path, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return nil
}
