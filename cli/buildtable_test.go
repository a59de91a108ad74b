package cli

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/bundler"
)

func TestBuildTable(t *testing.T) {
	plain := []bundler.Item{
		{Kind: bundler.KindPod, Name: "a", ModuleBytes: 100, InitialMemory: 65536},
		{Kind: bundler.KindBundle, Name: "s", Bundle: "firmware/images/web/s", Stats: bundler.CompressStats{RawBytes: 3000, GzipBytes: 1200}},
	}
	// A release build shows, on a terminal, each size before and after;
	// piped, the table keeps its numbers (-o json has both).
	release := []bundler.Item{
		{Kind: bundler.KindPod, Name: "a", ModuleBytes: 3 << 20, CompiledBytes: 10 << 20, InitialMemory: 65536},
		{Kind: bundler.KindBundle, Name: "s", Bundle: "firmware/images/web/s", Stats: bundler.CompressStats{RawBytes: 3000, GzipBytes: 1100, PlainGzipBytes: 1200}},
	}
	brotli := []bundler.Item{
		{Kind: bundler.KindPod, Name: "a", ModuleBytes: 100, InitialMemory: 65536, Bundle: "firmware/images/web/a"},
		{Kind: bundler.KindBundle, Name: "s", Bundle: "firmware/images/web/s", Brotli: true},
	}
	cases := []struct {
		name  string
		items []bundler.Item
		human bool
		want  string
	}{
		{"piped", plain, false, "KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\npod\ta\t100\t65536\t-\t-\nbundle\ts\t-\t-\t3000\t1200\ntotal\t\t100\t65536\t3000\t1200\n"},
		{"piped with brotli", brotli, false, "KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\tBROTLI\npod\ta\t100\t65536\t0\t0\t-\nbundle\ts\t-\t-\t0\t0\t0\ntotal\t\t100\t65536\t0\t0\t0\n"},
		{"terminal", plain, true, "\n" +
			"KIND    NAME  MODULE  INIT-MEM  BUNDLE   GZIP     \n" +
			"pod     a     100 B   64.0 KiB  -        -        \n" +
			"bundle  s     -       -         2.9 KiB  1.2 KiB  \n" +
			"total         100 B   64.0 KiB  2.9 KiB  1.2 KiB  \n"},
		{"release on a terminal", release, true, "\n" +
			"KIND    NAME  MODULE              INIT-MEM  BUNDLE   GZIP               \n" +
			"pod     a     10.0 MiB → 3.0 MiB  64.0 KiB  -        -                  \n" +
			"bundle  s     -                   -         2.9 KiB  1.2 KiB → 1.1 KiB  \n" +
			"total         10.0 MiB → 3.0 MiB  64.0 KiB  2.9 KiB  1.2 KiB → 1.1 KiB  \n"},
		{"release piped", release, false, "KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\npod\ta\t3145728\t65536\t-\t-\nbundle\ts\t-\t-\t3000\t1100\ntotal\t\t3145728\t65536\t3000\t1100\n"},
		{"nothing", nil, false, "nothing to build: kube32.yaml lists no pods and no bundles\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			printBuildTable(&b, &bundler.BuildResult{Items: c.items}, c.human)
			if b.String() != c.want {
				t.Errorf("table:\n%q\nwant\n%q", b.String(), c.want)
			}
		})
	}
}
