package admission

import (
	"math"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The rest of a Pod's spec that kube-apiserver checks: fields kube32 does
// not act on are still admitted only when kube-apiserver would admit them,
// so that a manifest that works here works on a cluster. Empty values that
// kube-apiserver would default (dnsPolicy, imagePullPolicy) pass.

var (
	dnsPolicies                = []corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone}
	pullPolicies               = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}
	terminationMessagePolicies = []corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}
	tolerationOperators        = []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}
	taintEffects               = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
)

// validatePodSpecExtras checks the pod-level fields beside containers.
func validatePodSpecExtras(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	for _, f := range []struct{ name, value string }{{"hostname", spec.Hostname}, {"subdomain", spec.Subdomain}} {
		if f.value != "" {
			for _, msg := range validation.IsDNS1123Label(f.value) {
				errs = append(errs, field.Invalid(path.Child(f.name), f.value, msg))
			}
		}
	}
	if p := spec.DNSPolicy; p != "" && !sets.New(dnsPolicies...).Has(p) {
		errs = append(errs, field.NotSupported(path.Child("dnsPolicy"), p, dnsPolicies))
	}
	for _, f := range []struct{ name, value string }{
		{"serviceAccountName", spec.ServiceAccountName}, {"nodeName", spec.NodeName},
		{"priorityClassName", spec.PriorityClassName}, {"schedulerName", spec.SchedulerName},
	} {
		if f.value != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(f.value, false) {
				errs = append(errs, field.Invalid(path.Child(f.name), f.value, msg))
			}
		}
	}
	for i, gate := range spec.ReadinessGates {
		p := path.Child("readinessGates").Index(i).Child("conditionType")
		for _, msg := range validation.IsQualifiedName(string(gate.ConditionType)) {
			errs = append(errs, field.Invalid(p, string(gate.ConditionType), msg))
		}
	}
	errs = append(errs, validateTolerations(spec.Tolerations, path.Child("tolerations"))...)
	errs = append(errs, validateAffinity(spec.Affinity, path.Child("affinity"))...)
	return append(errs, validateVolumes(spec.Volumes, path.Child("volumes"))...)
}

// validateVolumes checks volume names (DNS labels, unique) and that each
// names exactly one source.
func validateVolumes(volumes []corev1.Volume, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, v := range volumes {
		p := path.Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case names.Has(v.Name):
			errs = append(errs, field.Duplicate(p.Child("name"), v.Name))
		default:
			for _, msg := range validation.IsDNS1123Label(v.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), v.Name, msg))
			}
		}
		names.Insert(v.Name)
		errs = append(errs, exactlyOneSet(v.VolumeSource, p, "volume type")...)
	}
	return errs
}

// exactlyOneSet checks that a union (a struct of pointers, such as a volume
// source or a probe's handler) sets exactly one member, in kube-apiserver's
// words: "must specify a <what>", "may not specify more than 1 <what>".
func exactlyOneSet(union any, path *field.Path, what string) field.ErrorList {
	v := reflect.ValueOf(union)
	n := 0
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
		}
	}
	switch {
	case n == 0:
		return field.ErrorList{field.Required(path, "must specify a "+what)}
	case n > 1:
		return field.ErrorList{field.Forbidden(path, "may not specify more than 1 "+what)}
	}
	return nil
}

// validateContainerExtras checks what kube-apiserver checks of a container
// beside its name, image, ports, env and memory: the pull policy, the
// volume mounts and the probes.
func validateContainerExtras(c *corev1.Container, volumes sets.Set[string], path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p := c.ImagePullPolicy; p != "" && !sets.New(pullPolicies...).Has(p) {
		errs = append(errs, field.NotSupported(path.Child("imagePullPolicy"), p, pullPolicies))
	}
	if p := c.TerminationMessagePolicy; p != "" && !sets.New(terminationMessagePolicies...).Has(p) {
		errs = append(errs, field.NotSupported(path.Child("terminationMessagePolicy"), p, terminationMessagePolicies))
	}
	mountPaths := sets.New[string]()
	for i, m := range c.VolumeMounts {
		p := path.Child("volumeMounts").Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if !volumes.Has(m.Name) {
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		} else if mountPaths.Has(m.MountPath) {
			errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		mountPaths.Insert(m.MountPath)
	}
	for _, probe := range []struct {
		name  string
		probe *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
		if probe.probe == nil {
			continue
		}
		p := path.Child(probe.name)
		errs = append(errs, validateProbe(probe.probe, p)...)
		if probe.name != "readinessProbe" && probe.probe.SuccessThreshold != 0 && probe.probe.SuccessThreshold != 1 {
			errs = append(errs, field.Invalid(p.Child("successThreshold"), probe.probe.SuccessThreshold, "must be 1"))
		}
	}
	return errs
}

// validateProbe: exactly one handler, non-negative timings, a valid port.
func validateProbe(probe *corev1.Probe, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, exactlyOneSet(probe.ProbeHandler, path, "handler type")...)
	if h := probe.HTTPGet; h != nil {
		errs = append(errs, validatePortNumOrName(h.Port, path.Child("httpGet", "port"))...)
		if s := h.Scheme; s != "" && s != corev1.URISchemeHTTP && s != corev1.URISchemeHTTPS {
			errs = append(errs, field.NotSupported(path.Child("httpGet", "scheme"), s, []corev1.URIScheme{corev1.URISchemeHTTP, corev1.URISchemeHTTPS}))
		}
	}
	if h := probe.TCPSocket; h != nil {
		errs = append(errs, validatePortNumOrName(h.Port, path.Child("tcpSocket", "port"))...)
	}
	if h := probe.GRPC; h != nil {
		for _, msg := range validation.IsValidPortNum(int(h.Port)) {
			errs = append(errs, field.Invalid(path.Child("grpc", "port"), h.Port, msg))
		}
	}
	if h := probe.Exec; h != nil && len(h.Command) == 0 {
		errs = append(errs, field.Required(path.Child("exec", "command"), ""))
	}
	for _, f := range []struct {
		name  string
		value int32
	}{{"initialDelaySeconds", probe.InitialDelaySeconds}, {"timeoutSeconds", probe.TimeoutSeconds}, {"periodSeconds", probe.PeriodSeconds},
		{"successThreshold", probe.SuccessThreshold}, {"failureThreshold", probe.FailureThreshold}} {
		if f.value < 0 {
			errs = append(errs, field.Invalid(path.Child(f.name), f.value, "must be greater than or equal to 0"))
		}
	}
	return errs
}

func validatePortNumOrName(port intstr.IntOrString, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Type == intstr.String {
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(path, port.StrVal, msg))
		}
		return errs
	}
	for _, msg := range validation.IsValidPortNum(port.IntValue()) {
		errs = append(errs, field.Invalid(path, port.IntValue(), msg))
	}
	return errs
}

// validateTolerations checks keys, operators, values and effects as
// kube-apiserver does.
func validateTolerations(tolerations []corev1.Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		p := path.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, tolerationOperators))
		}
		if t.Effect != "" && !sets.New(taintEffects...).Has(t.Effect) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, taintEffects))
		}
	}
	return errs
}
