package images

import (
	"errors"
	"fmt"
	"io/fs"
)

// ResolveModule reads the module of image ref from imagesRoot, a tree that
// holds firmware/ and sd/ as `kube32 build` writes them under build/ (for
// example os.DirFS("app/build") or an embedded FS). It also returns the
// image's asset bundle, or nil when the image has none.
func ResolveModule(imagesRoot fs.FS, ref string) ([]byte, fs.FS, error) {
	img, err := ParseImage(ref)
	if err != nil {
		return nil, nil, err
	}
	modPath := InRoot(img.Storage, img.ModulePath())
	wasm, err := fs.ReadFile(imagesRoot, modPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("image %s: module %s not found (was the project built?)", ref, modPath)
		}
		return nil, nil, fmt.Errorf("image %s: %w", ref, err)
	}
	bundlePath := InRoot(img.Storage, img.BundlePath())
	info, err := fs.Stat(imagesRoot, bundlePath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return wasm, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("image %s: %w", ref, err)
	case !info.IsDir():
		return nil, nil, fmt.Errorf("image %s: asset bundle %s is not a directory", ref, bundlePath)
	}
	assets, err := fs.Sub(imagesRoot, bundlePath)
	if err != nil {
		return nil, nil, fmt.Errorf("image %s: %w", ref, err)
	}
	return wasm, assets, nil
}
