package build

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestBuildWritesBrotliVariantsWhenTheBundleOptsIn(t *testing.T) {
	dir := copyFixture(t, "brotli")
	var out bytes.Buffer
	res, err := Build(context.Background(), dir, Options{Out: &out})
	if err != nil {
		t.Fatalf("Build: %v\n%s", err, out.String())
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
	// The size table reports raw, gzip and brotli bytes (piped: exact numbers).
	row := strings.Join([]string{"bundle", "site", "-", "-", itoa(st.RawBytes), itoa(st.GzipBytes), itoa(st.BrotliBytes)}, "\t")
	for _, want := range []string{"KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\tBROTLI\n", row + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	// Turning brotli off rebuilds the bundle without .br files.
	yaml := filepath.Join(dir, "kube32.yaml")
	data, _ := os.ReadFile(yaml)
	if err := os.WriteFile(yaml, bytes.ReplaceAll(data, []byte("brotli: true"), []byte("brotli: false")), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := Build(context.Background(), dir, Options{Out: &out}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tree(t, dir), " "); strings.Contains(got, ".br") {
		t.Errorf("brotli off: tree still has .br: %s", got)
	}
	if strings.Contains(out.String(), "BROTLI") {
		t.Errorf("brotli off: the table has a BROTLI column:\n%s", out.String())
	}
}

func TestPlainTableWithBrotli(t *testing.T) {
	var buf bytes.Buffer
	printTable(&buf, &Result{Items: []Item{
		{Kind: KindPod, Name: "a", ModuleBytes: 100, InitialMemory: 65536, Bundle: "firmware/images/web/a"},
		{Kind: KindBundle, Name: "s", Bundle: "firmware/images/web/s", Brotli: true},
	}})
	want := "KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\tBROTLI\npod\ta\t100\t65536\t0\t0\t-\nbundle\ts\t-\t-\t0\t0\t0\ntotal\t\t100\t65536\t0\t0\t0\n"
	if buf.String() != want {
		t.Errorf("table:\n%q\nwant\n%q", buf.String(), want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
