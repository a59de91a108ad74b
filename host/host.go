// Package host is the public face of kube32's local runtime: what the CLI,
// the benchmarks and tests outside host/ may use. The runtime's parts live
// under host/internal (docs/design.md); this package names the few entry
// points into them and promises to keep them:
//
//   - a cluster: Start runs a control plane (and its workers), StartWorker a
//     node that joins one, each from its options; WithStartHooks hands a
//     program that runs a kube32 command in its own process the cluster
//     the command started;
//   - objects: admitted exactly as the API server admits them, their keys,
//     the Kubernetes API over objects of its own (NewAPI); manifest files
//     are read by host/apis/manifest;
//   - one pod: a wasm module run under the ABI without a cluster (for SDK
//     tests and tools);
//   - the kubeconfig entry serve writes, and kube32 on a Kubernetes cluster
//     (install, deploy, the Ingress controller).
//
// Its types are its own, with unexported fields and the methods callers
// use; they are converted to the runtime's at this door. Objects enter a
// cluster's store from outside host only through admission.
package host
