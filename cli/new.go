package cli

import (
	"fmt"
	"path/filepath"

	"github.com/kube32/kube32/bundler"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/templates"
)

// NewOptions are the options of `kube32 new`.
type NewOptions struct {
	IO       IOStreams
	Name     string
	Template string
	Dir      string // where to create the app; default ./<name>
}

func newNewCommand(io IOStreams) *cobra.Command {
	opts := NewOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold a new app from a template",
		Long:  "Scaffold a new app in ./NAME from a template embedded in kube32 (no git, no network).\nList the templates with `kube32 templates`.",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return RunNew(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Template, "template", "t", templates.All[0].Name, "template to start from")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory to create (default ./NAME)")
	return cmd
}

// RunNew scaffolds an app.
func RunNew(opts NewOptions) error {
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
	sdk, err := writeGoSDK(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "Created %s from template %s:\n", dir, opts.Template)
	for _, f := range written {
		fmt.Fprintf(opts.IO.Out, "  %s\n", filepath.Join(dir, f))
	}
	if sdk != "" {
		fmt.Fprintf(opts.IO.Out, "  %s (the Go SDK, for go vet, go test and editors)\n", sdk)
	}
	fmt.Fprintf(opts.IO.Out, "\nNext:\n  cd %s\n  kube32 build\n  kube32 test\n  kube32 serve\n", dir)
	return nil
}

// writeGoSDK writes the Go SDK copy that the Go pods of the new app's go.mod
// files point to, and the Go bindings of the WIT world for the pods that
// require them, so that the Go toolchain and editors work before the first
// build. It returns the SDK's folder, "" when the app has no Go pod.
func writeGoSDK(dir string) (string, error) {
	p, err := bundler.LoadProject(dir)
	if err != nil {
		return "", err
	}
	sdk := ""
	for _, pod := range p.Pods {
		if pod.Language != bundler.Go {
			continue
		}
		if sdk == "" {
			rel, err := filepath.Rel(p.Dir, p.GoSDKDir())
			if err != nil {
				return "", err
			}
			sdk = filepath.Join(dir, rel)
			if err := compile.WriteGoSDK(p.GoSDKDir()); err != nil {
				return "", err
			}
		}
		// A pod on the WIT world's Go bindings (template go-wit) gets them
		// too, for the same tools.
		if uses, err := compile.UsesWIT(p.Path(pod.Source)); err == nil && uses {
			if err := compile.WriteGoWIT(p.GoWITDir()); err != nil {
				return "", err
			}
		}
	}
	return sdk, nil
}
