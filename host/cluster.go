package host

import (
	"context"

	"github.com/kube32/kube32/host/internal/cluster"
)

// A Cluster is a control plane with its workers, in this process.
type Cluster = cluster.Cluster

// Options configures Start.
type Options = cluster.Options

// Applied says what Cluster.Apply changed.
type Applied = cluster.Applied

// A Worker is a node that joined a control plane.
type Worker = cluster.Worker

// WorkerOptions configures StartWorker.
type WorkerOptions = cluster.WorkerOptions

// KubernetesOptions make a worker a node of a Kubernetes cluster.
type KubernetesOptions = cluster.KubernetesOptions

// ControlPlaneName is the control plane's Node name.
const ControlPlaneName = cluster.ControlPlaneName

// MaxNodes is the largest cluster serve runs.
const MaxNodes = cluster.MaxNodes

// Start runs a cluster: its ports, its objects and its pods.
func Start(ctx context.Context, opts Options) (*Cluster, error) { return cluster.Start(ctx, opts) }

// StartWorker runs a node that registers with a control plane's API server.
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	return cluster.StartWorker(ctx, opts)
}

// WorkerName is the Node name of worker i (1, 2, …).
func WorkerName(i int) string { return cluster.WorkerName(i) }
