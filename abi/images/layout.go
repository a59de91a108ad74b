package images

import "path"

// Directories of the two trees, relative to their storage root.
const (
	FirmwareImagesDir = "images"        // the firmware tree `kube32 flash --firmware` copies
	FirmwareWasmDir   = "images/wasm"   // modules of wasm://embedded images
	FirmwareWebDir    = "images/web"    // asset bundles of embedded images and StaticBundles
	SDRootDir         = "kube32"        // the card tree `kube32 flash --sd` copies
	SDImagesDir       = "kube32/images" // modules and asset bundles of wasm://sd images
)

// BundleDir is the firmware directory a StaticBundle named name is served
// from: images/web/<name>.
func BundleDir(name string) string { return path.Join(FirmwareWebDir, name) }

// InRoot prefixes a storage-relative path with the storage's directory, giving
// the path under a project's build/ directory (or an imagesRoot of
// ResolveModule): "firmware/images/wasm/echo.wasm".
func InRoot(s Storage, p string) string { return path.Join(string(s), p) }
