package project

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/internal/compile"
)

// fieldError names the file and field of a problem.
func fieldError(field, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", FileName, field, fmt.Sprintf(format, args...))
}

// validate checks p, fills defaults and collects every problem, so that one
// run of `kube32 build` shows them all.
func (p *Project) validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if p.Name == "" {
		add(fieldError("name", "is required"))
	} else if !isDNSLabel(p.Name) {
		add(fieldError("name", "%q must be a DNS label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit", p.Name))
	}
	if p.Board != "" {
		if _, err := abi.LookupBoard(p.Board); err != nil {
			add(fieldError("board", "%v", err))
		}
	}
	for i, m := range p.Manifests {
		add(p.checkPath(fmt.Sprintf("manifests[%d]", i), m, false))
	}

	// owners maps an output (module or bundle directory, inside its storage)
	// to the field that writes it, so that two entries never write one path.
	owners := map[string]string{}
	claim := func(field string, s images.Storage, out string) {
		key := string(s) + "/" + out
		if prev, ok := owners[key]; ok {
			add(fieldError(field, "writes %s/%s, which %s already writes", s, out, prev))
			return
		}
		owners[key] = field
	}

	for i := range p.Pods {
		pod := &p.Pods[i]
		f := fmt.Sprintf("pods[%d]", i)
		nameOK := false
		if err := images.ValidateName(pod.Name); err != nil {
			add(fieldError(f+".name", "%v", err))
		} else {
			nameOK = true
		}
		lang, known := compile.LookupLanguage(pod.Language)
		switch {
		case pod.Language == "":
			add(fieldError(f+".language", "is required (%s)", compile.LanguageNames()))
		case !known:
			add(fieldError(f+".language", "%q is not supported (%s)", pod.Language, compile.LanguageNames()))
		}
		switch {
		case pod.Source == "" && known:
			add(fieldError(f+".source", "is required (%s)", lang.Source))
		case pod.Source == "":
			add(fieldError(f+".source", "is required"))
		case known && lang.SourceExt != "":
			add(p.checkSourceFile(f+".source", pod.Source, lang))
		default:
			add(p.checkPath(f+".source", pod.Source, true))
		}
		if pod.Assets != "" {
			add(p.checkBundled(f+".assets", pod.Assets))
		}
		if len(pod.CFlags) > 0 && known && !lang.TakesCFlags {
			add(fieldError(f+".cflags", "applies only to %s", cflagsLanguages()))
		}
		if !nameOK {
			continue
		}
		if pod.Image == "" {
			pod.Image = images.Ref(images.Firmware, pod.Name)
		}
		img, err := images.ParseImage(pod.Image)
		if err != nil {
			add(fieldError(f+".image", "%v", err))
			continue
		}
		if img.Name != pod.Name {
			add(fieldError(f+".image", "%q must name the pod: %s or %s",
				pod.Image, images.Ref(images.Firmware, pod.Name), images.Ref(images.SD, pod.Name)))
			continue
		}
		pod.Parsed = img
		claim(f, img.Storage, img.ModulePath())
		if pod.Assets != "" {
			claim(f+".assets", img.Storage, img.BundlePath())
		}
	}

	for i, b := range p.Bundles {
		f := fmt.Sprintf("bundles[%d]", i)
		if err := images.ValidateName(b.Name); err != nil {
			add(fieldError(f+".name", "%v", err))
		} else {
			claim(f, images.Firmware, images.BundleDir(b.Name))
		}
		if b.Dir == "" {
			add(fieldError(f+".dir", "is required (the directory to serve)"))
		} else {
			add(p.checkBundled(f+".dir", b.Dir))
		}
	}
	return errors.Join(errs...)
}

// cflagsLanguages names the languages that take cflags: "language c".
func cflagsLanguages() string {
	var names []string
	for _, l := range compile.Languages {
		if l.TakesCFlags {
			names = append(names, l.Name)
		}
	}
	return "language " + strings.Join(names, ", ")
}

// checkSourceFile checks that the source of a pod whose language takes a
// file (a prebuilt .wasm) is a regular file of that extension of at most
// abi.PrebuiltBytesMax bytes; what is in it the build checks
// (docs/components.md).
func (p *Project) checkSourceFile(field, rel string, lang *compile.Language) error {
	info, err := os.Stat(p.Path(rel))
	switch {
	case err != nil && os.IsNotExist(err):
		return fieldError(field, "%s: no such file", rel)
	case err != nil:
		return fieldError(field, "%v", err)
	case !info.Mode().IsRegular():
		return fieldError(field, "%s is not a file (language %s takes the %s)", rel, lang.Name, strings.TrimPrefix(lang.Source, "the pod's "))
	case !strings.HasSuffix(rel, lang.SourceExt):
		return fieldError(field, "%s: want a %s file (language %s)", rel, lang.SourceExt, lang.Name)
	case info.Size() > abi.PrebuiltBytesMax:
		return fieldError(field, "%s is %d bytes, over the limit of %d (abi.PrebuiltBytesMax): no node pulls a larger module", rel, info.Size(), int64(abi.PrebuiltBytesMax))
	}
	return nil
}

// checkPath checks that a path of the project exists and is a directory (or
// a regular file when wantDir is false).
func (p *Project) checkPath(field, rel string, wantDir bool) error {
	if rel == "" {
		return fieldError(field, "is empty")
	}
	info, err := os.Stat(p.Path(rel))
	switch {
	case err != nil && os.IsNotExist(err):
		if wantDir {
			return fieldError(field, "%s: no such directory", rel)
		}
		return fieldError(field, "%s: no such file", rel)
	case err != nil:
		return fieldError(field, "%v", err)
	case wantDir && !info.IsDir():
		return fieldError(field, "%s is not a directory", rel)
	case !wantDir && info.IsDir():
		return fieldError(field, "%s is a directory, not a manifest file", rel)
	}
	return nil
}

// isDNSLabel reports whether s is an RFC 1123 label, as Kubernetes names are.
func isDNSLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}
