package kube32v1

// StaticBundles is the resource name of StaticBundles in kube32.io/v1, as
// URLs, RBAC rules and the CustomResourceDefinition spell it.
const StaticBundles = "staticbundles"
