package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/bundler"
	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/inputfile"
	"github.com/kube32/kube32/internal/oci"
)

// deployOptions are the options of `kube32 deploy`.
type deployOptions struct {
	IO         IOStreams
	Dir        string // the project; "" = found from the current folder
	Kubeconfig string // the Kubernetes cluster's kubeconfig file
	Context    string // its context; "" = the current one
	Registry   string // REGISTRY[/PATH] the modules and bundles are pushed under
	PlainHTTP  bool   // plain HTTP to a registry that is not on loopback
	Namespace  string // every object's namespace; "" = each manifest's
	Replicas   int    // replicas of a Pod without the replicas annotation
	Timeout    time.Duration
	DryRun     bool   // build and push, print the objects, touch no cluster
	Output     string // with DryRun: "yaml" prints the objects, "" their names
	Delete     bool   // remove the app from the cluster instead
	Board      string // the board profile the build fits, as for build
}

func newDeployCommand(io IOStreams) *cobra.Command {
	opts := deployOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "deploy [DIR] --kubeconfig FILE --registry REGISTRY[/PATH]",
		Short: "Deploy the app to a Kubernetes cluster that runs kube32 nodes",
		Long: `Build the project (DIR, or else the nearest folder holding a kube32.yaml from
the current one up) where it is stale, push every pod's module and every
bundle to the registry (REGISTRY/PATH/NAME, by digest: what the registry
holds already is not pushed again), and apply what the project's manifests
become on a cluster: each Pod a Deployment of runtime class kube32 (replicas
from the Pod's annotation ` + abi.AnnotationReplicas + `, else --replicas), its images
the pushed references; Services, NetworkPolicies and Ingresses (of class
kube32 unless they name another) as they are; StaticBundles with spec.image.
It applies them with server-side apply, prunes what an earlier deploy of the
app made and the project no longer has, waits for the rollouts and prints
each Ingress's address (docs/kubernetes.md).

With --dry-run it builds and pushes, then prints what it would apply
(-o yaml: the objects, for kubectl apply, GitOps or Kustomize) and touches
no cluster. --delete removes everything a deploy of the app made.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = argDir(args)
			switch {
			case opts.Output != "" && opts.Output != "yaml":
				return &usageError{fmt.Errorf("-o %s: want -o yaml", opts.Output)}
			case opts.Output != "" && !opts.DryRun:
				return &usageError{errors.New("-o yaml prints what would be applied: use it with --dry-run")}
			case opts.Delete && opts.DryRun:
				return &usageError{errors.New("--delete and --dry-run: choose one")}
			case opts.Kubeconfig == "" && !opts.DryRun:
				return &usageError{errors.New("--kubeconfig FILE is required: the kubeconfig of the Kubernetes cluster")}
			case opts.Registry == "" && !opts.Delete:
				return &usageError{errors.New("--registry REGISTRY[/PATH] is required: where the cluster's nodes pull the modules and bundles from")}
			}
			return runDeploy(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file of the Kubernetes cluster")
	f.StringVar(&opts.Context, "context", "", "context of the kubeconfig to use (default its current context)")
	f.StringVar(&opts.Registry, "registry", "", "OCI registry and path to push to, e.g. ghcr.io/acme/shop: each module and bundle goes to REGISTRY/PATH/NAME")
	f.BoolVar(&opts.PlainHTTP, "plain-http", false, "reach a registry that is not on this machine over plain HTTP")
	f.StringVarP(&opts.Namespace, "namespace", "n", "", "namespace of every object (default each manifest's, else default)")
	intFlag(f, &opts.Replicas, "replicas", 1, 0, math.MaxInt32, "replicas of each Pod's Deployment, unless the Pod's annotation "+abi.AnnotationReplicas+" says")
	f.DurationVar(&opts.Timeout, "timeout", abi.DeployTimeoutDefault, "how long to wait for the rollouts (with --delete: for the pods to go)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "build and push, print what would be applied, touch no cluster")
	f.StringVarP(&opts.Output, "output", "o", "", "with --dry-run: yaml prints the objects")
	f.BoolVar(&opts.Delete, "delete", false, "remove from the cluster everything a deploy of this app made")
	addBoardFlag(f, &opts.Board)
	return cmd
}

// runDeploy deploys the project, prints it for a dry run, or deletes it.
func runDeploy(ctx context.Context, opts deployOptions) error {
	dir, err := projectDir(opts.Dir, opts.IO.ErrOut)
	if errors.Is(err, bundler.ErrNoProject) {
		return errors.New("no kube32.yaml in this folder or any parent: kube32 deploy deploys a project (docs/kubernetes.md)")
	} else if err != nil {
		return err
	}
	p, err := bundler.LoadProject(dir)
	if err != nil {
		return err
	}
	report := func(line string) { fmt.Fprintln(opts.IO.Out, line) }
	progress := func(line string) { fmt.Fprintln(opts.IO.ErrOut, line) }
	apply := host.DeployApplyOptions{App: p.Name(), Timeout: opts.Timeout, Report: report, Progress: progress}
	var cfg *rest.Config
	if !opts.DryRun {
		if cfg, err = host.KubernetesConfig(opts.Kubeconfig, opts.Context); err != nil {
			return err
		}
		if opts.Delete {
			return host.DeleteFromKubernetes(ctx, cfg, apply)
		}
		// Refused before anything is built or pushed.
		if err := host.CheckKubernetesInstall(ctx, cfg); err != nil {
			return err
		}
	}

	result, err := runBuild(ctx, opts.IO, dir, false, bundler.BuildOptions{Board: opts.Board})
	if err != nil {
		return err
	}
	objs := result.Objects
	printManifestWarnings(opts.IO.ErrOut, objs)
	// -o yaml's standard output is the objects alone.
	pushed := opts.IO.Out
	if opts.Output == "yaml" {
		pushed = opts.IO.ErrOut
	}
	refs, err := pushProject(ctx, opts, p, result, pushed)
	if err != nil {
		return err
	}
	applied, err := host.DeployObjects(objs, host.DeployOptions{App: p.Name(), Namespace: opts.Namespace,
		Replicas: int32(opts.Replicas), Images: refs.images, Bundles: refs.bundles})
	if err != nil {
		return err
	}
	if opts.DryRun {
		if opts.Output == "yaml" {
			b, err := host.DeployYAML(applied)
			if err != nil {
				return err
			}
			_, err = opts.IO.Out.Write(b)
			return err
		}
		for _, u := range applied {
			report(host.KubernetesName(u) + " (dry run)")
		}
		return nil
	}
	return host.DeployToKubernetes(ctx, cfg, applied, apply)
}

// pushed are the references a deploy pushed the project's outputs to.
type pushed struct {
	images  map[string]string // a pod's image (wasm://…) → REGISTRY/PATH/NAME@sha256:…
	bundles map[string]string // a bundle's name → its reference
}

// pushProject pushes every pod's module and every bundle of the build by
// digest, saying on w what it pushed and what the registry held already.
func pushProject(ctx context.Context, opts deployOptions, p *bundler.Project, result *bundler.BuildResult, w io.Writer) (pushed, error) {
	out := pushed{images: map[string]string{}, bundles: map[string]string{}}
	names := map[string]string{}
	for i, pod := range p.Pods() {
		names[pod.Name] = fmt.Sprintf("pods[%d]", i)
		if pod.Assets != "" {
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s: pods[%d].assets: an OCI image brings a module only: on the cluster k32_resp_asset finds none of %s (serve them from a StaticBundle, docs/oci.md)\n", bundler.ProjectFileName, i, pod.Assets)
		}
	}
	for i, b := range p.Bundles() {
		if prev, ok := names[b.Name]; ok {
			return pushed{}, fmt.Errorf("%s: bundles[%d].name: %q is also the name of %s; deploy pushes each to --registry/NAME", bundler.ProjectFileName, i, b.Name, prev)
		}
	}
	for _, it := range result.Items {
		repo := opts.Registry + "/" + it.Name
		var ref string
		var done bool
		var err error
		switch it.Kind {
		case bundler.KindPod:
			var module []byte
			module, err = inputfile.Read(ctx, filepath.Join(result.BuildDir, filepath.FromSlash(it.Module)), abi.OCIModuleBytesMax, "abi.OCIModuleBytesMax, the most nodes pull")
			if err == nil {
				ref, done, err = oci.PushModuleByDigest(ctx, module, repo, opts.PlainHTTP)
			}
			out.images[it.Image] = ref
		case bundler.KindBundle:
			ref, done, err = oci.PushBundleByDigest(ctx, filepath.Join(result.BuildDir, filepath.FromSlash(it.Bundle)), repo, opts.PlainHTTP)
			out.bundles[it.Name] = ref
		default:
			continue
		}
		if err != nil {
			return pushed{}, fmt.Errorf("%s %s: --registry %s: %w", it.Kind, it.Name, opts.Registry, err)
		}
		if done {
			fmt.Fprintf(w, "pushed %s %s to %s\n", it.Kind, it.Name, ref)
		} else {
			fmt.Fprintf(w, "%s %s unchanged at %s\n", it.Kind, it.Name, ref)
		}
	}
	return out, nil
}
