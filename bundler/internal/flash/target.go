package flash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// cardHousekeeping are entries an operating system puts on an empty card.
var cardHousekeeping = map[string]bool{
	"System Volume Information": true, "LOST.DIR": true, "lost+found": true,
}

// checkSD reports why path cannot be flashed as an SD card, or nil. A card
// is a directory that already holds a kube32/ directory, or is a mount
// point, or is empty (hidden files and the housekeeping directories an
// operating system creates do not count). Anything else, such as a home
// directory given by mistake, is refused; `mkdir PATH/kube32` accepts it.
func checkSD(path string) error {
	if err := isDir(path); err != nil {
		return err
	}
	if info, err := os.Stat(filepath.Join(path, "kube32")); err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s: kube32 is a file, not the card's kube32/ directory", path)
		}
		return nil
	}
	if isMountPoint(path) {
		return nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") && !cardHousekeeping[e.Name()] {
			return fmt.Errorf("%s does not look like an SD card: it is not a mount point, has no kube32/ directory and is not empty (it holds %s); run `mkdir %s` to flash it anyway",
				path, e.Name(), filepath.Join(path, "kube32"))
		}
	}
	return nil
}

// checkFirmware reports why path cannot be flashed as a firmware source
// tree, or nil. A firmware tree is a directory holding an ESP-IDF project
// (CMakeLists.txt, sdkconfig or main/) or an images/ directory from an
// earlier flash.
func checkFirmware(path string) error {
	if err := isDir(path); err != nil {
		return err
	}
	for _, marker := range []string{"CMakeLists.txt", "sdkconfig", "main", "images"} {
		if _, err := os.Stat(filepath.Join(path, marker)); err == nil {
			if marker == "images" {
				if info, _ := os.Stat(filepath.Join(path, marker)); !info.IsDir() {
					return fmt.Errorf("%s: images is a file, not the firmware's images/ directory", path)
				}
			}
			return nil
		}
	}
	return fmt.Errorf("%s does not look like a firmware source tree: it has no CMakeLists.txt, sdkconfig, main/ or images/", path)
}

func isDir(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("%s does not exist", path)
		}
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	return nil
}
