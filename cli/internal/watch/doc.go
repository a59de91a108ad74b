// Package watch is `kube32 serve --watch`: it watches a project's sources,
// kube32.yaml and manifests, rebuilds what changed with bundler/internal/build after
// each burst of edits, and swaps the result into the running cluster without
// restarting it (docs/serve.md, "--watch"): pods on a new module restart,
// rebuilt bundles and pod assets are served at once, and the manifests are
// applied again as kubectl apply would, pruning the objects they dropped.
package watch
