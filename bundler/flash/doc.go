// Package flash implements `kube32 flash`: it copies the trees `kube32 build`
// wrote into a mounted SD card (build/sd/kube32 → CARD/kube32) or a firmware
// source tree (build/firmware/images → TREE/images).
//
// Each file is written atomically (a temporary file in the same directory,
// synced, then renamed), so a flash interrupted by an error or a pulled card
// leaves every file either as it was or complete. Identical files are not
// rewritten. Inside a bundle directory (images/web/<name>/ on the firmware,
// kube32/images/<name>/ on the card) files the build no longer produces are
// removed after everything else is written: a stale index.html.gz next to a
// new index.html would otherwise be served instead of it. Files elsewhere in
// the target (other modules, other firmware files) are never touched, except
// the temporary files an interrupted flash left (named as atomicfile names
// them), which are removed before anything is copied.
package flash
