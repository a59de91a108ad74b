package images

import "testing"

// Issue 19, item 1: an image name is any name that is one safe path element
// (ValidateName), as docs/abi.md ("Images") maps wasm://embedded/<name> to
// images/wasm/<name>.wasm; C projects name their files chan_pod.c or
// echo.v2.c, and their manifests ran before admission was unified.
func TestImageNameIsOneSafePathElementWithUnderscoreAndDot(t *testing.T) {
	for _, ref := range []string{"wasm://embedded/chan_pod", "wasm://sd/echo.v2", "wasm://embedded/a_b.c-d"} {
		img, err := ParseImage(ref)
		if err != nil {
			t.Errorf("ParseImage(%q): %v", ref, err)
			continue
		}
		if want := ref[len("wasm://embedded/"):]; img.Storage == Firmware && img.Name != want {
			t.Errorf("ParseImage(%q).Name = %q, want %q", ref, img.Name, want)
		}
	}
}
