package images

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Storage is where an image lives on a board.
type Storage string

// The two storages of docs/abi.md ("Images"). Their values are the
// directory names of the trees under a project's build/ directory.
const (
	Firmware Storage = "firmware" // the firmware flash (wasm://embedded/…)
	SD       Storage = "sd"       // the SD card (wasm://sd/…)
)

// scheme is the URL scheme of every image reference.
const scheme = "wasm://"

// hosts maps the host part of a reference to its storage.
var hosts = map[string]Storage{"embedded": Firmware, "sd": SD}

// Image is a parsed image reference such as "wasm://embedded/echo".
type Image struct {
	Ref     string  // the reference as written
	Storage Storage // Firmware for wasm://embedded, SD for wasm://sd
	Name    string  // the image name: the module is <Name>.wasm
}

// namePattern keeps names safe as one path element on FAT cards and in URLs:
// lowercase letters, digits, '-', '_' and '.', starting and ending with a
// letter or digit (so never "." or "..").
var namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$`)

// maxNameLen is the longest image or bundle name (a DNS label's length).
const maxNameLen = 63

// ValidateName reports why name cannot be an image or bundle name, or nil.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("name is empty")
	case len(name) > maxNameLen:
		return fmt.Errorf("name %q is longer than %d characters", name, maxNameLen)
	case !namePattern.MatchString(name):
		return fmt.Errorf("name %q must use only lowercase letters, digits, '-', '_' and '.', and start and end with a letter or digit", name)
	}
	return nil
}

// ParseImage parses "wasm://embedded/<name>" or "wasm://sd/<name>", <name>
// one safe path element by ValidateName, and nothing else. It is the one
// image rule: admission checks Pods' images with it and the kubelet
// resolves them with it, so every reference the API admits resolves.
func ParseImage(ref string) (Image, error) {
	rest, ok := strings.CutPrefix(ref, scheme)
	if !ok {
		return Image{}, fmt.Errorf("image %q: must start with %q (wasm://embedded/<name> or wasm://sd/<name>)", ref, scheme)
	}
	host, name, ok := strings.Cut(rest, "/")
	storage, known := hosts[host]
	if !known {
		return Image{}, fmt.Errorf("image %q: unknown storage %q (embedded or sd)", ref, host)
	}
	if !ok || name == "" {
		return Image{}, fmt.Errorf("image %q: no image name after %s%s/", ref, scheme, host)
	}
	if strings.Contains(name, "/") {
		return Image{}, fmt.Errorf("image %q: the name %q must be one path element", ref, name)
	}
	if err := ValidateName(name); err != nil {
		return Image{}, fmt.Errorf("image %q: %v", ref, err)
	}
	return Image{Ref: ref, Storage: storage, Name: name}, nil
}

// Ref returns the reference of the image name in storage s.
func Ref(s Storage, name string) string {
	if s == SD {
		return scheme + "sd/" + name
	}
	return scheme + "embedded/" + name
}

// ModulePath is the module's path inside its storage:
// images/wasm/<name>.wasm on the firmware, kube32/images/<name>.wasm on the card.
func (i Image) ModulePath() string {
	if i.Storage == SD {
		return path.Join(SDImagesDir, i.Name+".wasm")
	}
	return path.Join(FirmwareWasmDir, i.Name+".wasm")
}

// BundlePath is the directory of the image's asset bundle inside its storage:
// images/web/<name> on the firmware, kube32/images/<name> on the card.
func (i Image) BundlePath() string {
	if i.Storage == SD {
		return path.Join(SDImagesDir, i.Name)
	}
	return path.Join(FirmwareWebDir, i.Name)
}

// String returns the reference.
func (i Image) String() string { return Ref(i.Storage, i.Name) }
