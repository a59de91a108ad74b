// Package host is the public face of kube32's local runtime: what the CLI,
// the benchmarks and tests outside host/ may use. The runtime's parts live
// under host/internal (docs/design.md); this package names the few entry
// points into them and promises to keep them:
//
//   - a cluster: Start runs a control plane (and its workers), StartWorker a
//     node that joins one, each from its options;
//   - objects: admitted exactly as the API server admits them, the store
//     and its keys, the Kubernetes API over a store (manifest files are
//     read by host/apis/manifest);
//   - one pod: a wasm module run under the ABI without a cluster (for SDK
//     tests and tools);
//   - the kubeconfig entry serve writes.
//
// The names are aliases of the internal ones, so a value passes between this
// package and the runtime without conversion.
package host
