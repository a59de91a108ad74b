package cli

import (
	"fmt"
	"path/filepath"

	"github.com/kube32/kube32/bundler"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kube32/kube32/templates"
)

// newOptions are the options of `kube32 new`.
type newOptions struct {
	IO       IOStreams
	Name     string
	Template string
	Dir      string // where to create the app; default ./<name>
}

func newNewCommand(io IOStreams) *cobra.Command {
	opts := newOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold a new app from a template",
		Long:  "Scaffold a new app in ./NAME from a template embedded in kube32 (no git, no network).\nList the templates with `kube32 templates`.",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return runNew(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Template, "template", "t", templates.All[0].Name, "template to start from")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory to create (default ./NAME)")
	return cmd
}

// runNew scaffolds an app.
func runNew(opts newOptions) error {
	if msgs := validation.IsDNS1123Label(opts.Name); len(msgs) > 0 {
		return &usageError{fmt.Errorf("app name %q: %s", opts.Name, msgs[0])}
	}
	dir := opts.Dir
	if dir == "" {
		dir = opts.Name
	}
	written, err := templates.Render(opts.Template, dir, templates.Data{Name: opts.Name})
	if err != nil {
		return err
	}
	sdks, err := writeSDKs(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Created %s from template %s:\n", dir, opts.Template)
	for _, f := range written {
		fmt.Fprintf(opts.IO.Out, "  %s\n", filepath.Join(dir, f))
	}
	for _, sdk := range sdks {
		fmt.Fprintf(opts.IO.Out, "  %s (the SDK, for the toolchain and editors)\n", sdk)
	}
	fmt.Fprintf(opts.IO.Out, "\nNext:\n  cd %s\n  kube32 build\n  kube32 test\n  kube32 serve\n", dir)
	return nil
}

// writeSDKs writes the SDK copies that the new app's pods use outside the
// build (the Go SDK that go.mod files point at, the AssemblyScript SDK that
// asc and editors read), so that the toolchains and editors work before the
// first build. It returns their folders under dir.
func writeSDKs(dir string) ([]string, error) {
	p, err := bundler.LoadProject(dir)
	if err != nil {
		return nil, err
	}
	abs, err := bundler.WriteSDKs(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range abs {
		rel, err := filepath.Rel(p.Dir(), a)
		if err != nil {
			return nil, err
		}
		out = append(out, filepath.Join(dir, rel))
	}
	return out, nil
}
