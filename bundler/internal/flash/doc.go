// Package flash implements `kube32 flash`: it copies the trees `kube32 build`
// wrote into a mounted SD card (build/sd/kube32 → CARD/kube32) or a firmware
// source tree (build/firmware/images → TREE/images).
//
// The target is never written in place: the whole new tree is staged in a
// sibling folder (the old tree's files linked or copied, the changes
// written there, each file atomically) and switched in at once, so a flash
// interrupted at any point leaves the target either the whole old tree or
// the whole new one (swap.go). Identical files are not rewritten. Inside a
// bundle directory (images/web/<name>/ on the firmware,
// kube32/images/<name>/ on the card) files the build no longer produces are
// removed: a stale index.html.gz next to a new index.html would otherwise
// be served instead of it. Files elsewhere in the target (other modules,
// other firmware files) are carried over unchanged, except the temporary
// files an interrupted flash left (named as atomicfile names them, or the
// staging folders of swap.go), which are removed before anything is copied.
package flash
