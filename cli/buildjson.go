package cli

import (
	"io"

	"github.com/kube32/kube32/bundler"
)

// The JSON of `kube32 build -o json`, documented in docs/cli.md. Paths are
// slash-separated and relative to buildDir; sizes are in bytes.
type (
	buildJSON struct {
		BuildDir string       `json:"buildDir"` // absolute
		Board    string       `json:"board"`    // "" for none
		Pods     []podJSON    `json:"pods"`
		Bundles  []bundleJSON `json:"bundles"`
		Total    totalJSON    `json:"total"`
		Removed  []string     `json:"removed"`  // stale outputs removed
		Warnings []string     `json:"warnings"` // one sentence each
		Fit      bundler.Fit  `json:"fit"`      // the fit report
	}
	podJSON struct {
		Name               string     `json:"name"`
		Image              string     `json:"image"`
		Module             string     `json:"module"`
		ModuleBytes        int64      `json:"moduleBytes"`
		CompiledBytes      int64      `json:"compiledBytes"` // --release: the module before wasm-opt and stripping; else 0
		InitialMemoryBytes int64      `json:"initialMemoryBytes"`
		MemoryLimitBytes   int64      `json:"memoryLimitBytes"` // 0: no Pod sets one
		Assets             *sizesJSON `json:"assets"`           // null: the pod has no assets
		CompilerWarnings   string     `json:"compilerWarnings"`
		UpToDate           bool       `json:"upToDate"`
	}
	bundleJSON struct {
		Name string `json:"name"`
		sizesJSON
		UpToDate bool `json:"upToDate"`
	}
	sizesJSON struct {
		Dir         string `json:"dir"`
		Brotli      bool   `json:"brotli"`
		Files       int    `json:"files"`
		RawBytes    int64  `json:"rawBytes"`
		GzipBytes   int64  `json:"gzipBytes"`
		BrotliBytes int64  `json:"brotliBytes"` // with brotli: what a br client downloads; else as gzipBytes
		StoredBytes int64  `json:"storedBytes"` // on flash or card
		// --release: gzipBytes had compress/gzip written every .gz; else 0.
		PlainGzipBytes int64 `json:"plainGzipBytes"`
	}
	totalJSON struct {
		ModuleBytes        int64 `json:"moduleBytes"`
		CompiledBytes      int64 `json:"compiledBytes"`
		InitialMemoryBytes int64 `json:"initialMemoryBytes"`
		RawBytes           int64 `json:"rawBytes"`
		GzipBytes          int64 `json:"gzipBytes"`
		PlainGzipBytes     int64 `json:"plainGzipBytes"`
		BrotliBytes        int64 `json:"brotliBytes"`
		StoredBytes        int64 `json:"storedBytes"`
		UpToDate           bool  `json:"upToDate"`
	}
)

// printBuildJSON writes a build's result as JSON.
func printBuildJSON(w io.Writer, res *bundler.BuildResult) error {
	out := buildJSON{BuildDir: res.BuildDir, Board: res.Board, Pods: []podJSON{}, Bundles: []bundleJSON{},
		Removed: nonNil(res.Removed), Warnings: nonNil(res.Warnings), Fit: res.Fit}
	for _, it := range res.Items {
		if it.Kind == bundler.KindBundle {
			out.Bundles = append(out.Bundles, bundleJSON{Name: it.Name, sizesJSON: sizes(it), UpToDate: it.UpToDate})
			continue
		}
		p := podJSON{Name: it.Name, Image: it.Image, Module: it.Module, ModuleBytes: it.ModuleBytes, CompiledBytes: it.CompiledBytes,
			InitialMemoryBytes: it.InitialMemory, MemoryLimitBytes: it.MemoryLimit,
			CompilerWarnings: it.CompilerWarnings, UpToDate: it.UpToDate}
		if it.Bundle != "" {
			s := sizes(it)
			p.Assets = &s
		}
		out.Pods = append(out.Pods, p)
	}
	t := res.Total()
	out.Total = totalJSON{ModuleBytes: t.ModuleBytes, CompiledBytes: t.CompiledBytes, InitialMemoryBytes: t.InitialMemory,
		RawBytes: t.Stats.RawBytes, GzipBytes: t.Stats.GzipBytes, PlainGzipBytes: t.Stats.PlainGzipBytes, BrotliBytes: t.Stats.BrotliBytes,
		StoredBytes: t.Stats.StoredBytes, UpToDate: t.UpToDate}
	return writeJSON(w, out)
}

// sizes are the bundle sizes of an item.
func sizes(it bundler.Item) sizesJSON {
	br := it.Stats.BrotliBytes
	if !it.Brotli {
		br = it.Stats.GzipBytes // as Result.Total counts it
	}
	return sizesJSON{Dir: it.Bundle, Brotli: it.Brotli, Files: it.Stats.Files, RawBytes: it.Stats.RawBytes,
		GzipBytes: it.Stats.GzipBytes, BrotliBytes: br, StoredBytes: it.Stats.StoredBytes, PlainGzipBytes: it.Stats.PlainGzipBytes}
}

// nonNil makes an empty list [] rather than null in JSON.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
