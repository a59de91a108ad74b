// Package k32 is the Go guest SDK for kube32 pods.
package k32
