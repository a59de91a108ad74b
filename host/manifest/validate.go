package manifest

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pageSize is one WebAssembly page, the unit of a pod's memory limit.
var pageSize = resource.MustParse("64Ki")

// validate checks what kube32 relies on; each error names its field.
func validate(obj runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Pod:
		return validatePod(o)
	case *corev1.Service:
		return validateService(o)
	case *networkingv1.Ingress:
		return validateIngress(o)
	default:
		return nil
	}
}

func validateName(name string) field.ErrorList {
	path := field.NewPath("metadata", "name")
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

func validatePod(pod *corev1.Pod) field.ErrorList {
	errs := validateName(pod.Name)
	containers := field.NewPath("spec", "containers")
	if len(pod.Spec.Containers) == 0 {
		errs = append(errs, field.Required(containers, "a pod runs at least one container"))
	}
	for i, c := range pod.Spec.Containers {
		path := containers.Index(i)
		if !strings.HasPrefix(c.Image, "wasm://embedded/") && !strings.HasPrefix(c.Image, "wasm://sd/") {
			errs = append(errs, field.Invalid(path.Child("image"), c.Image,
				"a kube32 image is wasm://embedded/<name> or wasm://sd/<name>"))
		}
		if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && limit.Cmp(pageSize) < 0 {
			errs = append(errs, field.Invalid(path.Child("resources", "limits", "memory"), limit.String(),
				"must be at least 64Ki, one WebAssembly page"))
		}
	}
	switch pod.Spec.RestartPolicy {
	case "", corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("spec", "restartPolicy"), pod.Spec.RestartPolicy,
			[]string{"Always", "OnFailure", "Never"}))
	}
	return errs
}

func validateService(svc *corev1.Service) field.ErrorList {
	errs := validateName(svc.Name)
	ports := field.NewPath("spec", "ports")
	for i, p := range svc.Spec.Ports {
		if p.Port < 1 || p.Port > 65535 {
			errs = append(errs, field.Invalid(ports.Index(i).Child("port"), p.Port, "must be between 1 and 65535"))
		}
	}
	return errs
}
