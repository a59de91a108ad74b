package bundler

import (
	"github.com/kube32/kube32/bundler/internal/build"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
)

// A Project is a decoded and validated kube32.yaml.
type Project = project.Project

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
func LoadProject(dir string) (*Project, error) { return project.Load(dir) }

// LoadManifests decodes the objects of the project's manifests, each
// naming its file as kube32.yaml lists it, as the build reads them.
func LoadManifests(p *Project) ([]manifest.Object, error) { return build.LoadManifests(p) }
