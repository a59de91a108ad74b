package modcheck

import "fmt"

// PageSize is the size of one WebAssembly memory page: 64Ki.
const PageSize = 64 * 1024

// CapPages is the number of whole pages that fit in limit bytes, the cap on a
// pod's linear memory (docs/abi.md, "Memory"): floor(limit / 64Ki), at most 65536 pages
// (4Gi, all that wasm32 can address).
func CapPages(limit int64) uint32 {
	pages := limit / PageSize
	if pages > 65536 {
		return 65536
	}
	if pages < 0 {
		return 0
	}
	return uint32(pages)
}

// FormatBytes writes n as a Kubernetes quantity with a binary suffix when n is
// a whole number of Ki, Mi or Gi ("64Ki", "1088Ki", "1Mi"), else as bytes.
func FormatBytes(n int64) string {
	const ki, mi, gi = 1 << 10, 1 << 20, 1 << 30
	switch {
	case n != 0 && n%gi == 0:
		return fmt.Sprintf("%dGi", n/gi)
	case n != 0 && n%mi == 0:
		return fmt.Sprintf("%dMi", n/mi)
	case n != 0 && n%ki == 0:
		return fmt.Sprintf("%dKi", n/ki)
	}
	return fmt.Sprintf("%d", n)
}

// FormatPages writes a page count with its size: "17 pages (1088Ki)", "1 page (64Ki)".
func FormatPages(pages uint32) string {
	return fmt.Sprintf("%s (%s)", Pages(pages), FormatBytes(int64(pages)*PageSize))
}

// Pages writes a page count: "1 page", "17 pages".
func Pages(pages uint32) string {
	if pages == 1 {
		return "1 page"
	}
	return fmt.Sprintf("%d pages", pages)
}
