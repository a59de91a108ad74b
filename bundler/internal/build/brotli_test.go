package build

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildWritesBrotliVariantsWhenTheBundleOptsIn(t *testing.T) {
	dir := copyFixture(t, "brotli")
	res, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	got := strings.Join(tree(t, dir), "\n")
	want := strings.Join([]string{
		"firmware/images/web/site/index.html",
		"firmware/images/web/site/index.html.br",
		"firmware/images/web/site/index.html.gz",
		"firmware/images/web/site/tiny.txt", // neither variant is smaller
	}, "\n")
	if got != want {
		t.Errorf("build tree:\n%s\nwant:\n%s", got, want)
	}
	site := res.Items[0]
	st := site.Stats
	if !site.Brotli || st.Brotlied != 1 || st.BrotliBytes >= st.GzipBytes || st.GzipBytes >= st.RawBytes {
		t.Errorf("site item %+v: want raw > gzip > brotli", site)
	}
	if total := res.Total(); !total.Brotli || total.Stats.BrotliBytes != st.BrotliBytes {
		t.Errorf("total %+v: want the site's brotli bytes", total)
	}

	// Turning brotli off rebuilds the bundle without .br files.
	yaml := filepath.Join(dir, "kube32.yaml")
	data, _ := os.ReadFile(yaml)
	if err := os.WriteFile(yaml, bytes.ReplaceAll(data, []byte("brotli: true"), []byte("brotli: false")), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tree(t, dir), " "); strings.Contains(got, ".br") {
		t.Errorf("brotli off: tree still has .br: %s", got)
	}
	if res.Total().Brotli {
		t.Error("brotli off: the total still says a bundle has .br variants")
	}
}
