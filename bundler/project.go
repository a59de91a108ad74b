package bundler

import (
	"github.com/kube32/kube32/bundler/internal/build"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
)

// A Project is a decoded and validated kube32.yaml (docs/project.md).
type Project struct{ p *project.Project }

// A ProjectPod is an entry of kube32.yaml's pods.
type ProjectPod struct {
	Name, Language, Source string
	Image                  string // as kube32.yaml gives it ("": wasm://embedded/<name>)
	Assets                 string // the asset bundle's folder, "" for none
}

// A ProjectBundle is an entry of kube32.yaml's bundles.
type ProjectBundle struct{ Name, Dir string }

// Dir is the project's folder, absolute; File its kube32.yaml.
func (p *Project) Dir() string  { return p.p.Dir }
func (p *Project) File() string { return p.p.File() }

// Name is the app's name; Board the board kube32.yaml names ("" for none).
func (p *Project) Name() string  { return p.p.Name }
func (p *Project) Board() string { return p.p.Board }

// Path is rel, a path of kube32.yaml, from the project's folder.
func (p *Project) Path(rel string) string { return p.p.Path(rel) }

// BuildDir is the project's build/ folder.
func (p *Project) BuildDir() string { return p.p.BuildDir() }

// ManifestPaths are the absolute paths of the manifests.
func (p *Project) ManifestPaths() []string { return p.p.ManifestPaths() }

// Pods and Bundles are kube32.yaml's entries, in its order.
func (p *Project) Pods() []ProjectPod {
	var out []ProjectPod
	for _, pod := range p.p.Pods {
		out = append(out, ProjectPod{Name: pod.Name, Language: pod.Language, Source: pod.Source, Image: pod.Image, Assets: pod.Assets})
	}
	return out
}

func (p *Project) Bundles() []ProjectBundle {
	var out []ProjectBundle
	for _, b := range p.p.Bundles {
		out = append(out, ProjectBundle{Name: b.Name, Dir: b.Dir})
	}
	return out
}

// The project file's name and the build folder's.
const (
	ProjectFileName = project.FileName
	BuildDirName    = project.BuildDirName
)

// ErrNoProject is FindProject's error when no kube32.yaml is found.
var ErrNoProject = project.ErrNotFound

// FindProject looks for kube32.yaml in dir and its parents.
func FindProject(dir string) (string, error) { return project.Find(dir) }

// LoadProject reads and validates the kube32.yaml in dir.
func LoadProject(dir string) (*Project, error) {
	p, err := project.Load(dir)
	if err != nil {
		return nil, err
	}
	return &Project{p: p}, nil
}

// LoadManifests decodes the objects of the project's manifests, each
// naming its file as kube32.yaml lists it, as the build reads them.
func LoadManifests(p *Project) ([]manifest.Object, error) { return build.LoadManifests(p.p) }
