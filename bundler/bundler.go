// Package bundler is the public face of what turns a kube32 project into
// images: what the CLI, the benchmarks and tests outside bundler/ may use.
// Its parts live under bundler/internal (docs/design.md); this package
// names the entry points and promises to keep them:
//
//   - the project: finding and loading kube32.yaml and its manifests;
//   - the build: Build with its steps, fit report and result, which carries
//     what it loaded;
//   - precompression of a file's bytes;
//   - Flash: copying built trees to a card or a firmware source tree.
//
// Its options, steps and Flash's result are its own types; the build's
// result, fit report and the project are still aliases of the internal
// ones (internal/layout lists them).
package bundler
