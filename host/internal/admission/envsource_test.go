package admission

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// envPod is a Pod manifest whose one container has the env entry given in
// YAML flow style.
func envPod(env string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: default}\nspec:\n" +
		"  containers: [{name: c, image: 'wasm://embedded/echo', env: [" + env + "]}]\n"
}

// Every source the kubelet resolves is admitted, fieldRef's apiVersion
// defaulted to v1 as kube-apiserver does.
func TestEnvSourcesTheKubeletResolvesAreAdmitted(t *testing.T) {
	var env []string
	for _, p := range []string{"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels['app']",
		"metadata.annotations['example.com/Note']", "spec.nodeName", "spec.serviceAccountName",
		"status.podIP", "status.podIPs", "status.hostIP", "status.hostIPs"} {
		env = append(env, fmt.Sprintf(`{name: F%d, valueFrom: {fieldRef: {fieldPath: "%s"}}}`, len(env), p))
	}
	env = append(env, "{name: LIMIT, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}",
		"{name: REQUEST, valueFrom: {resourceFieldRef: {containerName: c, resource: requests.memory}}}")
	obj, strictErr, err := Decode("application/yaml", []byte(envPod(strings.Join(env, ", "))))
	if err != nil || strictErr != nil {
		t.Fatal(strictErr, err)
	}
	if errs := Admit(obj); len(errs) > 0 {
		t.Fatalf("refused: %v", errs)
	}
	if ref := obj.(*corev1.Pod).Spec.Containers[0].Env[0].ValueFrom.FieldRef; ref.APIVersion != "v1" {
		t.Errorf("fieldRef.apiVersion %q, want it defaulted to v1", ref.APIVersion)
	}
}

// Refusals read as kube-apiserver's where it has the rule.
func TestEnvSourceRefusalsReadAsKubeAPIServers(t *testing.T) {
	for _, tt := range []struct{ env, want string }{
		{"{name: A, valueFrom: {fieldRef: {fieldPath: status.phase}}}",
			`spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`},
		{"{name: A, valueFrom: {fieldRef: {fieldPath: \"spec.nodeName['x']\"}}}",
			`spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nodeName['x']": error converting fieldPath: field label does not support subscript: spec.nodeName['x']`},
		{"{name: A, valueFrom: {resourceFieldRef: {resource: limits.cpu}}}",
			`spec.containers[0].env[0].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.cpu": supported values: "limits.memory", "requests.memory"`},
		{"{name: A, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 3Ki}}}",
			`spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource`},
		{"{name: A, valueFrom: {configMapKeyRef: {name: cm, key: k}}}",
			`spec.containers[0].env[0].valueFrom.configMapKeyRef: Forbidden: kube32 serves no ConfigMaps`},
		{"{name: A, valueFrom: {}}",
			"spec.containers[0].env[0].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"},
		{"{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}, secretKeyRef: {name: s, key: k}}}",
			`spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time`},
		{"{name: A, value: x, valueFrom: {fieldRef: {fieldPath: metadata.name}}}",
			"spec.containers[0].env[0].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"},
	} {
		obj, _, err := Decode("application/yaml", []byte(envPod(tt.env)))
		if err != nil {
			t.Fatal(err)
		}
		if got := Admit(obj).ToAggregate(); got == nil || !strings.Contains(got.Error(), tt.want) {
			t.Errorf("env %s: %v\nwant %s", tt.env, got, tt.want)
		}
	}
}

// A divisor that is no quantity fails to decode, naming its field.
func TestBadDivisorIsNamed(t *testing.T) {
	_, _, err := Decode("application/yaml", []byte(envPod("{name: A, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: lots}}}")))
	want := `spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor: "lots": quantities must match`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Decode = %v, want %s…", err, want)
	}
}
