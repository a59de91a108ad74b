package compile

// PageSize is the WebAssembly page size.
const PageSize = 64 << 10

// smallPodLimit is the largest limit for which the linker is told the exact
// initial memory. Small pods must fit a whole number of pages within the
// limit, and wasm-ld's own choice (static data plus the stack, rounded up)
// would not know about the limit; above it, the linker's choice is far below
// any limit and saves card space.
const smallPodLimit = 1 << 20

// initialMemory is the --initial-memory a C pod is linked with for a memory
// limit: the limit rounded down to whole pages (at least one) when the limit
// is at most 1 MiB, so a 64Ki pod is a one-page module; 0 means the linker
// chooses.
func initialMemory(limit int64) int64 {
	if limit <= 0 || limit > smallPodLimit {
		return 0
	}
	pages := limit / PageSize
	if pages < 1 {
		pages = 1
	}
	return pages * PageSize
}
