package flash

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

func TestFlashLeavesBrotliVariantsOff(t *testing.T) {
	// Boards serve .gz only: the .br variants of a build stay on the host.
	build := testenv.Tree(t, map[string]string{
		"firmware/images/web/site/index.html":    "page",
		"firmware/images/web/site/index.html.gz": "gz",
		"firmware/images/web/site/index.html.br": "br",
		"firmware/images/web/site/app.js.gz":     "gz only",
		"firmware/images/web/site/app.js.br":     "br of a gz-only file",
		"firmware/images/web/site/font.br":       "a file of its own, no variant",
		"sd/kube32/images/thumb/a.css.gz":        "gz",
		"sd/kube32/images/thumb/a.css.br":        "br",
	})
	card := t.TempDir()
	fw := testenv.Tree(t, map[string]string{
		"CMakeLists.txt": "project(x)",
		// left by hand or by an older tool: flash mirrors the bundle without it
		"images/web/site/index.html.br": "stale br",
	})
	var out bytes.Buffer
	res, err := Flash(Options{Build: build, SD: card, Firmware: fw, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	want := "CMakeLists.txt images/web/site/app.js.gz images/web/site/font.br images/web/site/index.html images/web/site/index.html.gz"
	if got := keys(readTree(t, fw)); got != want {
		t.Errorf("firmware tree:\n  %s\nwant\n  %s", got, want)
	}
	if got := keys(readTree(t, card)); got != "kube32/images/thumb/a.css.gz" {
		t.Errorf("card: %s", got)
	}
	if res.Count(opRemove) != 1 {
		t.Errorf("changes %+v: want the stale index.html.br removed", res.Changes)
	}
	text := out.String()
	note := "skipped 3 .br file(s): boards serve .gz only"
	if strings.Count(text, note) != 1 {
		t.Errorf("output should say once %q:\n%s", note, text)
	}
	if strings.Contains(text, filepath.Join(fw, "images/web/site/index.html.br")) && !strings.Contains(text, "remove    "+filepath.Join(fw, "images/web/site/index.html.br")) {
		t.Errorf("output lists a .br other than its removal:\n%s", text)
	}

	// Without .br files nothing is said.
	out.Reset()
	if _, err := Flash(Options{Build: fakeBuild(t, "v1"), SD: t.TempDir(), Out: &out}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), ".br") {
		t.Errorf("output mentions .br without any:\n%s", out.String())
	}
}
