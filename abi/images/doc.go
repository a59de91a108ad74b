// Package images maps image references and StaticBundle names to the image
// trees of docs/abi.md ("Images"): where a module and its asset bundle live on the
// firmware flash and on the SD card. `kube32 build` writes these trees,
// `kube32 serve` reads them and `kube32 flash` copies them, so the layout is
// written down once, here.
//
// Paths are slash-separated and relative to the storage root (the firmware
// tree or the card), as io/fs expects; callers on disk use filepath.FromSlash.
package images
