package abi

// Version is the version of the ABI: the version of the WIT package that
// abi/k32.wit declares (kube32:app@Version). wit_test.go fails when the two
// differ, so a change of the WIT's version must change this constant too.
const Version = "0.1.0"

// The Kubernetes version kube32 serves: what `GET /version` answers, the
// version of the OpenAPI documents and every Node's kubeletVersion. kubectl
// reads it to pick its behaviour, so it is part of the API contract
// (docs/kubectl.md); boards and serve report the same one.
const (
	KubernetesMajor = "1"
	KubernetesMinor = "32"
	// KubernetesVersion is the gitVersion, derived from major and minor so
	// that the three never disagree.
	KubernetesVersion = "v" + KubernetesMajor + "." + KubernetesMinor + ".0-kube32"
)
