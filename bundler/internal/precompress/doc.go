// Package precompress stores gzip variants of a bundle's files beside them
// (<file>.gz), which the Ingress controller and k32_resp_asset serve to
// clients that accept gzip. Boards have no CPU to spare for compressing on the
// fly, so it is done once, at build time, as hard as the library can.
package precompress
