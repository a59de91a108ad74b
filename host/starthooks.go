package host

import "context"

// StartHooks are handed what Start and StartKubernetesIngress started,
// just before they return it, when the context they were given carries
// them (WithStartHooks). They are how a program that runs a kube32
// command in its own process (cli.Run) reaches the cluster the command
// started: kube32's tests and benchmarks run `kube32 serve` with the flags
// a user types, then read and load the cluster it runs. A nil hook is not
// called.
type StartHooks struct {
	Cluster           func(*Cluster)
	KubernetesIngress func(*KubernetesIngress)
}

type startHooksKey struct{}

// WithStartHooks returns a copy of ctx that carries hooks.
func WithStartHooks(ctx context.Context, hooks StartHooks) context.Context {
	return context.WithValue(ctx, startHooksKey{}, hooks)
}

// startHooks are the hooks ctx carries (none: all nil).
func startHooks(ctx context.Context) StartHooks {
	h, _ := ctx.Value(startHooksKey{}).(StartHooks)
	return h
}
