package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/bundler"
	"github.com/kube32/kube32/cli/internal/yamledit"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/templates"
)

// addOptions are the options of `kube32 add pod|bundle`.
type addOptions struct {
	IO       IOStreams
	Kind     string // addPod or addBundle
	Name     string
	Template string // "" = the default of the kind
	Dir      string // the project; "" = the nearest from the current folder up
}

// What kube32 add adds.
const (
	addPod    = "pod"
	addBundle = "bundle"
)

// The templates kube32 add takes by default: for a pod of a project without
// pods, and for a bundle. A pod template is one with a Language.
const (
	defaultPodTemplate = "c-http"
	bundleTemplate     = "static-site"
)

// Where kube32 add writes, as kube32 new does: pods/NAME, bundles/NAME,
// manifests/NAME.yaml, tests/NAME.hurl.
const (
	podsFolder      = "pods"
	bundlesFolder   = "bundles"
	manifestsFolder = "manifests"
	testsFolder     = "tests"
)

func newAddCommand(io IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "add pod|bundle NAME",
		Short: "Add a pod or a StaticBundle to the project, with its manifests and test",
		Long: `Add a pod or a StaticBundle to the project (the nearest folder holding a
kube32.yaml from the current one up, or --dir): write its sources from a
template, its manifests with an Ingress route at /NAME, and a test, and list
it in kube32.yaml. kube32.yaml keeps its comments, order and indentation;
no existing file or entry is ever overwritten.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{fmt.Errorf("kube32 add pod NAME or kube32 add bundle NAME")}
			}
			return &usageError{fmt.Errorf("cannot add a %q: kube32 add pod NAME or kube32 add bundle NAME", args[0])}
		},
	}
	for _, kind := range []string{addPod, addBundle} {
		opts := addOptions{IO: io, Kind: kind}
		sub := &cobra.Command{
			Use:  kind + " NAME",
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				opts.Name = args[0]
				return runAdd(opts)
			},
		}
		if kind == addPod {
			sub.Short = "Add a pod: pods/NAME, manifests/NAME.yaml (Pod, Service, Ingress /NAME), tests/NAME.hurl"
			sub.Flags().StringVarP(&opts.Template, "template", "t", "", strings.Join(podTemplates(), ", ")+" (default: the language of most of the project's pods, else "+defaultPodTemplate+")")
		} else {
			sub.Short = "Add a StaticBundle: bundles/NAME, manifests/NAME.yaml (StaticBundle, Ingress /NAME), tests/NAME.hurl"
			sub.Flags().StringVarP(&opts.Template, "template", "t", bundleTemplate, "the template of the site")
		}
		sub.Flags().StringVar(&opts.Dir, "dir", "", "the project folder (default: the nearest holding a kube32.yaml)")
		cmd.AddCommand(sub)
	}
	return cmd
}

// runAdd adds a pod or a bundle to a project. It checks everything before
// it writes, and puts the project back as it was if the result does not
// load.
func runAdd(opts addOptions) error {
	dir, err := projectDir(opts.Dir, opts.IO.ErrOut)
	if errors.Is(err, bundler.ErrNoProject) {
		return fmt.Errorf("no %s in this folder or any parent: kube32 add adds to a project (`kube32 new NAME` makes one)", bundler.ProjectFileName)
	} else if err != nil {
		return err
	}
	p, err := bundler.LoadProject(dir)
	if err != nil {
		return fmt.Errorf("the project does not load, fix it before adding to it: %w", err)
	}
	// The name rule of kube32.yaml's pods and bundles (docs/project.md).
	if err := images.ValidateName(opts.Name); err != nil {
		return &usageError{fmt.Errorf("%s %v", opts.Kind, err)}
	}
	if err := checkUnused(p, opts.Name); err != nil {
		return err
	}
	tmpl, err := addTemplate(p, opts)
	if err != nil {
		return err
	}
	plan, err := planAdd(p, opts, tmpl)
	if err != nil {
		return err
	}
	if err := plan.apply(p); err != nil {
		return err
	}
	sdks, err := writeSDKs(dir)
	if err != nil {
		return err
	}
	plan.report(opts, tmpl, sdks, dir)
	return nil
}

// checkUnused refuses a name that a pod or bundle of kube32.yaml has.
func checkUnused(p *bundler.Project, name string) error {
	for i, pod := range p.Pods() {
		if pod.Name == name {
			return fmt.Errorf("%s: pods[%d] is already named %s: choose another name", bundler.ProjectFileName, i, name)
		}
	}
	for i, b := range p.Bundles() {
		if b.Name == name {
			return fmt.Errorf("%s: bundles[%d] is already named %s: choose another name", bundler.ProjectFileName, i, name)
		}
	}
	return nil
}

// addTemplate is --template, checked, or the kind's default: for a pod the
// template of the language most of the project's pods use (on a tie, the
// one that got there first), else c-http.
func addTemplate(p *bundler.Project, opts addOptions) (templates.Template, error) {
	if opts.Kind == addBundle {
		if opts.Template != bundleTemplate {
			return templates.Template{}, &usageError{fmt.Errorf("template %q does not make a bundle (%s)", opts.Template, bundleTemplate)}
		}
		t, _ := templates.Lookup(bundleTemplate)
		return t, nil
	}
	pods := podTemplates()
	if opts.Template != "" {
		if t, ok := templates.Lookup(opts.Template); ok && t.Language != "" {
			return t, nil
		}
		return templates.Template{}, &usageError{fmt.Errorf("template %q does not make a pod (%s)", opts.Template, strings.Join(pods, ", "))}
	}
	counts := map[string]int{}
	best := ""
	for _, pod := range p.Pods() {
		counts[pod.Language]++
		if counts[pod.Language] > counts[best] {
			best = pod.Language
		}
	}
	for _, t := range templates.All {
		if best != "" && t.Language == best {
			return t, nil
		}
	}
	t, _ := templates.Lookup(defaultPodTemplate)
	return t, nil
}

// podTemplates names the templates that make a pod.
func podTemplates() []string {
	var pods []string
	for _, t := range templates.All {
		if t.Language != "" {
			pods = append(pods, t.Name)
		}
	}
	return pods
}

// addPlan is what kube32 add writes, checked before anything is.
type addPlan struct {
	files    []templates.File // paths relative to the project
	folder   string           // the pod's source or the bundle's dir
	manifest string           // manifests/NAME.yaml
	kinds    []string         // the kinds of its objects, in order
	project  []byte           // the edited kube32.yaml
}

func planAdd(p *bundler.Project, opts addOptions, tmpl templates.Template) (*addPlan, error) {
	rendered, err := templates.Files(tmpl.Name, templates.Data{Name: opts.Name, Prefix: "/" + opts.Name})
	if err != nil {
		return nil, err
	}
	plan := &addPlan{manifest: path.Join(manifestsFolder, opts.Name+".yaml")}
	podDir := path.Join(podsFolder, opts.Name)
	if opts.Kind == addPod {
		plan.folder = podDir
	} else {
		plan.folder = path.Join(bundlesFolder, opts.Name)
	}
	for _, f := range rendered {
		switch {
		case f.Path == bundler.ProjectFileName || f.Path == ".gitignore":
			continue // the project has its own
		case f.Path == "app.yaml":
			f.Path = plan.manifest
		case path.Dir(f.Path) == testsFolder && path.Ext(f.Path) == ".hurl":
			f.Path = path.Join(testsFolder, opts.Name+".hurl")
		case strings.HasPrefix(f.Path, podDir+"/"):
		case strings.HasPrefix(f.Path, "site/"):
			f.Path = path.Join(plan.folder, strings.TrimPrefix(f.Path, "site/"))
		default:
			return nil, fmt.Errorf("template %s: kube32 add has no place for its file %s", tmpl.Name, f.Path)
		}
		plan.files = append(plan.files, f)
	}
	// Listed as a person reads them: sources, manifest, test.
	sort.SliceStable(plan.files, func(i, j int) bool { return addOrder(plan, plan.files[i]) < addOrder(plan, plan.files[j]) })
	// Never overwrite: not a file, nor a folder the new files would mix with.
	for _, rel := range append([]string{plan.folder}, plan.paths()...) {
		if _, err := os.Lstat(p.Path(rel)); err == nil {
			return nil, fmt.Errorf("%s already exists: choose another name, or move it away", rel)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := plan.checkObjects(p, opts); err != nil {
		return nil, err
	}
	src, err := os.ReadFile(p.File())
	if err != nil {
		return nil, err
	}
	entry := yamledit.Entry{Fields: []yamledit.Field{{Key: "name", Value: opts.Name}, {Key: "language", Value: tmpl.Language}, {Key: "source", Value: plan.folder}}}
	list := "pods"
	if opts.Kind == addBundle {
		entry = yamledit.Entry{Fields: []yamledit.Field{{Key: "name", Value: opts.Name}, {Key: "dir", Value: plan.folder}}}
		list = "bundles"
	}
	edited, err := yamledit.Append(src, list, entry)
	if err == nil {
		edited, err = yamledit.Append(edited, "manifests", yamledit.Entry{Scalar: plan.manifest})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bundler.ProjectFileName, err)
	}
	plan.project = edited
	return plan, nil
}

// checkObjects admits the new manifest's objects as the API would, so a
// name that cannot name them (a Service's name starts with a letter) is
// refused now, and refuses an object that a manifest of the project
// already defines.
func (a *addPlan) checkObjects(p *bundler.Project, opts addOptions) error {
	var objs []manifest.Object
	for _, f := range a.files {
		if f.Path != a.manifest {
			continue
		}
		var err error
		if objs, err = manifest.Decode(f.Path, f.Content); err != nil {
			return fmt.Errorf("%s %s cannot name its objects: %w", opts.Kind, opts.Name, err)
		}
	}
	old, err := bundler.LoadManifests(p)
	if err != nil {
		return err
	}
	defined := map[string]string{}
	for _, o := range old {
		defined[o.Key()] = fmt.Sprintf("%s: document %d", o.File, o.Doc)
	}
	for _, o := range objs {
		if where, ok := defined[o.Key()]; ok {
			return fmt.Errorf("%s already defines %s: choose another name", where, o.Key())
		}
		a.kinds = append(a.kinds, o.Kind())
	}
	return nil
}

func addOrder(a *addPlan, f templates.File) int {
	switch {
	case f.Path == a.manifest:
		return 1
	case strings.HasPrefix(f.Path, testsFolder+"/"):
		return 2
	}
	return 0
}

func (a *addPlan) paths() []string {
	out := make([]string, len(a.files))
	for i, f := range a.files {
		out[i] = f.Path
	}
	return out
}

// apply writes the files and kube32.yaml, then loads the project; when it
// does not load, or a write fails, it removes what it wrote and restores
// kube32.yaml.
func (a *addPlan) apply(p *bundler.Project) (err error) {
	var created []string // files, and folders that did not exist
	oldProject, err := os.ReadFile(p.File())
	if err != nil {
		return err
	}
	info, err := os.Stat(p.File())
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		_ = os.WriteFile(p.File(), oldProject, info.Mode().Perm())
		for i := len(created) - 1; i >= 0; i-- {
			_ = os.Remove(created[i])
		}
	}()
	for _, f := range a.files {
		target := p.Path(f.Path)
		dirs, err := missingDirs(p.Dir(), filepath.Dir(target))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		created = append(created, dirs...)
		// O_EXCL: a file that appeared since the check is not overwritten.
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		created = append(created, target)
		_, err = out.Write(f.Content)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if err := os.WriteFile(p.File(), a.project, info.Mode().Perm()); err != nil {
		return err
	}
	if _, err := bundler.LoadProject(p.Dir()); err != nil {
		return fmt.Errorf("the edited project does not load, so nothing was changed: %w", err)
	}
	return nil
}

// missingDirs lists the folders from root down to dir that do not exist
// yet, outermost first.
func missingDirs(root, dir string) ([]string, error) {
	var out []string
	for d := dir; d != root && len(d) > len(root); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append([]string{d}, out...)
	}
	return out, nil
}

// report says what was added and how to reach it.
func (a *addPlan) report(opts addOptions, tmpl templates.Template, sdks []string, dir string) {
	w := opts.IO.Out
	fmt.Fprintf(w, "Added %s %s to %s (template %s):\n", opts.Kind, opts.Name, bundler.ProjectFileName, tmpl.Name)
	for _, f := range a.files {
		if f.Path == a.manifest {
			fmt.Fprintf(w, "  %s (%s at /%s)\n", f.Path, strings.Join(a.kinds, ", "), opts.Name)
		} else {
			fmt.Fprintf(w, "  %s\n", f.Path)
		}
	}
	for _, sdk := range sdks {
		if rel, err := filepath.Rel(dir, sdk); err == nil {
			sdk = rel
		}
		fmt.Fprintf(w, "  %s (the SDK, for the toolchain and editors)\n", filepath.ToSlash(sdk))
	}
	fmt.Fprintf(w, "\nTry GET /%s/ on the Ingress of `kube32 serve`; `kube32 test` runs tests/%s.hurl.\n", opts.Name, opts.Name)
}
