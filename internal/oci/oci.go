// Package oci writes wasm modules to OCI registries and reads them back, in
// the CNCF wasm OCI artifact layout (docs/oci.md): `kube32 push` calls Push,
// and a node's kubelet pulls through a Puller, which verifies every digest
// and caches modules by digest. The reference rule and the media types live
// in abi/images.
package oci

import (
	"net"
	"net/http"
	"strings"
	"time"

	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// requestTimeout bounds each request to a registry, so that a registry
// that accepts connections and never answers does not hold a pull forever.
const requestTimeout = 2 * time.Minute

// Loopback reports whether host (a registry, with or without its port) is
// on this machine: localhost or 127.0.0.0/8 or ::1. Such registries are
// reached over plain HTTP, as Docker does.
func Loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// repository opens ref's repository: plain HTTP for a loopback registry or
// when plainHTTP is set, credentials from the Docker configuration
// (~/.docker/config.json) when it has some.
func repository(ref registry.Reference, plainHTTP bool) *remote.Repository {
	client := &auth.Client{Client: &http.Client{Timeout: requestTimeout}, Cache: auth.NewCache()}
	if store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{}); err == nil {
		client.Credential = credentials.Credential(store)
	}
	return &remote.Repository{Reference: ref, Client: client, PlainHTTP: plainHTTP || Loopback(ref.Registry)}
}
