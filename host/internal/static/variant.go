package static

// variant is a precompressed form of a bundle file, stored beside it.
type variant int

const (
	gzipVariant variant = iota
	brotliVariant
)

// ext is the suffix of the variant's file.
func (v variant) ext() string {
	if v == brotliVariant {
		return ".br"
	}
	return ".gz"
}

// coding is the variant's Content-Encoding.
func (v variant) coding() string {
	if v == brotliVariant {
		return "br"
	}
	return "gzip"
}
