package admission

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/abi/images"
)

// pageSize is one WebAssembly page, the unit of a pod's memory limit.
var pageSize = resource.MustParse("64Ki")

var (
	restartPolicies = []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}
	protocols       = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// defaultPod fills in the restart policy, the container ports' protocol and
// the apiVersion of env fieldRefs, as kube-apiserver does.
func defaultPod(pod *corev1.Pod) {
	if pod.Spec.RestartPolicy == "" {
		pod.Spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	for i := range pod.Spec.Containers {
		for j := range pod.Spec.Containers[i].Ports {
			if p := &pod.Spec.Containers[i].Ports[j]; p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
		}
		for _, e := range pod.Spec.Containers[i].Env {
			if f := e.ValueFrom; f != nil && f.FieldRef != nil && f.FieldRef.APIVersion == "" {
				f.FieldRef.APIVersion = "v1"
			}
		}
	}
}

// validatePod checks a Pod as kube-apiserver does for the fields kube32
// runs (containers, their ports, env and memory, the restart policy, the
// node selector), and that each image is a kube32 image reference.
func validatePod(pod *corev1.Pod) field.ErrorList {
	errs := validateMeta(pod, true, nameIsDNSSubdomain)
	spec := field.NewPath("spec")
	containers := spec.Child("containers")
	if len(pod.Spec.Containers) == 0 {
		errs = append(errs, field.Required(containers, ""))
	}
	volumes := sets.New[string]()
	for _, v := range pod.Spec.Volumes {
		volumes.Insert(v.Name)
	}
	names := sets.New[string]()
	for i, c := range pod.Spec.Containers {
		path := containers.Index(i)
		errs = append(errs, validateContainerName(c.Name, names, path.Child("name"))...)
		errs = append(errs, validateImage(c.Image, path.Child("image"))...)
		errs = append(errs, validateContainerPorts(c.Ports, path.Child("ports"))...)
		errs = append(errs, validateEnv(pod, c.Env, path.Child("env"))...)
		errs = append(errs, validateMemory(c.Resources, path.Child("resources"))...)
		errs = append(errs, validateContainerExtras(&c, volumes, path)...)
	}
	// Init containers do not run under kube32 (so any image passes), but
	// their names share the containers' and they are otherwise checked as
	// kube-apiserver checks them.
	for i, c := range pod.Spec.InitContainers {
		path := spec.Child("initContainers").Index(i)
		errs = append(errs, validateContainerName(c.Name, names, path.Child("name"))...)
		if c.Image == "" {
			errs = append(errs, field.Required(path.Child("image"), ""))
		}
		errs = append(errs, validateContainerExtras(&c, volumes, path)...)
	}
	errs = append(errs, validatePodSpecExtras(&pod.Spec, spec)...)
	switch p := pod.Spec.RestartPolicy; {
	case p == "":
		errs = append(errs, field.Required(spec.Child("restartPolicy"), ""))
	case !sets.New(restartPolicies...).Has(p):
		errs = append(errs, field.NotSupported(spec.Child("restartPolicy"), p, restartPolicies))
	}
	errs = append(errs, validateSelectorLabels(pod.Spec.NodeSelector, spec.Child("nodeSelector"))...)
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(spec.Child("terminationGracePeriodSeconds"), *g, "must be greater than or equal to 0"))
	}
	return errs
}

func validateContainerName(name string, seen sets.Set[string], path *field.Path) field.ErrorList {
	switch {
	case name == "":
		return field.ErrorList{field.Required(path, "")}
	case seen.Has(name):
		return field.ErrorList{field.Duplicate(path, name)}
	}
	seen.Insert(name)
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// validateImage accepts wasm://embedded/<name> and wasm://sd/<name>, and
// OCI references a node pulls (docs/oci.md), by the parsers of image
// references the kubelet resolves them with. A reference that is neither
// gets the wasm:// message it always got, with the OCI form added.
func validateImage(ref string, path *field.Path) field.ErrorList {
	if ref == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if images.IsOCI(ref) {
		return nil
	}
	if _, err := images.ParseImage(ref); err != nil {
		detail := strings.TrimPrefix(err.Error(), fmt.Sprintf("image %q: ", ref))
		return field.ErrorList{field.Invalid(path, ref, detail+"; a kube32 image is wasm://embedded/<name> or wasm://sd/<name>"+ociHint(ref))}
	}
	return nil
}

// ociHint adds the OCI form to the message of a reference outside the
// wasm:// scheme.
func ociHint(ref string) string {
	if images.IsWasmRef(ref) {
		return ""
	}
	return ", or an OCI reference REGISTRY/REPOSITORY[:TAG|@DIGEST]"
}

func validateContainerPorts(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		pp := path.Index(i)
		if p.Name != "" {
			for _, msg := range validation.IsValidPortName(p.Name) {
				errs = append(errs, field.Invalid(pp.Child("name"), p.Name, msg))
			}
			if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(pp.Child("name"), p.Name))
			}
			names.Insert(p.Name)
		}
		if p.ContainerPort == 0 {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(p.ContainerPort)) {
				errs = append(errs, field.Invalid(pp.Child("containerPort"), p.ContainerPort, msg))
			}
		}
		if p.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(p.HostPort)) {
				errs = append(errs, field.Invalid(pp.Child("hostPort"), p.HostPort, msg))
			}
		}
		errs = append(errs, validateProtocol(p.Protocol, pp.Child("protocol"))...)
	}
	return errs
}

func validateProtocol(p corev1.Protocol, path *field.Path) field.ErrorList {
	switch {
	case p == "":
		return field.ErrorList{field.Required(path, "")}
	case !sets.New(protocols...).Has(p):
		return field.ErrorList{field.NotSupported(path, p, protocols)}
	}
	return nil
}

func validateEnv(pod *corev1.Pod, env []corev1.EnvVar, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		name := path.Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(name, ""))
		} else {
			for _, msg := range validation.IsEnvVarName(e.Name) {
				errs = append(errs, field.Invalid(name, e.Name, msg))
			}
		}
		if e.ValueFrom != nil {
			errs = append(errs, validateEnvSource(pod, e, path.Index(i).Child("valueFrom"))...)
		}
	}
	return errs
}

// validateMemory checks that quantities are not negative, that a memory
// request does not exceed its limit, and that the limit holds at least one
// WebAssembly page.
func validateMemory(res corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, list := range []struct {
		name string
		rl   corev1.ResourceList
	}{{"limits", res.Limits}, {"requests", res.Requests}} {
		for name, q := range list.rl {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(path.Child(list.name).Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	limit, hasLimit := res.Limits[corev1.ResourceMemory]
	if hasLimit && limit.Cmp(pageSize) < 0 {
		errs = append(errs, field.Invalid(path.Child("limits").Key(string(corev1.ResourceMemory)), limit.String(),
			"must be at least 64Ki, one WebAssembly page"))
	}
	if request, ok := res.Requests[corev1.ResourceMemory]; ok && hasLimit && request.Cmp(limit) > 0 {
		errs = append(errs, field.Invalid(path.Child("requests"), request.String(),
			"must be less than or equal to memory limit of "+limit.String()))
	}
	return errs
}
