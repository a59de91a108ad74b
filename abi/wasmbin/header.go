package wasmbin

// The preamble of a binary: the magic, then the version and layer. A core
// module is version 1 layer 0, a component version 0x0d layer 1.
const (
	Magic           = "\x00asm"
	Header          = Magic + "\x01\x00\x00\x00"
	ComponentHeader = Magic + "\x0d\x00\x01\x00"
)

// HeaderLen is the length of the preamble, after which the sections start.
const HeaderLen = len(Header)
