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
// Its types are its own, with the methods callers use; they are converted
// to the build's at this door.
package bundler
