package precompress

// Stats sums a precompressed bundle.
type Stats struct {
	Files     int   // files of the bundle (not counting generated .gz and .br)
	Gzipped   int   // files that have a .gz
	Brotlied  int   // files that have a .br
	RawBytes  int64 // size of the files as given
	GzipBytes int64 // what a client accepting gzip downloads: the .gz where there is one, else the file
	// BrotliBytes is what a client accepting br and gzip downloads from
	// `kube32 serve`: the .br where there is one, else as GzipBytes.
	BrotliBytes int64
	// StoredBytes is what the bundle takes on flash or card after
	// precompression. .br files are not counted: they are never flashed.
	StoredBytes int64
	// PlainGzipBytes is, in a BestGzip build, what GzipBytes would be had
	// compress/gzip written every .gz; 0 otherwise.
	PlainGzipBytes int64
}

// Add sums two Stats.
func (s Stats) Add(o Stats) Stats {
	return Stats{
		Files:       s.Files + o.Files,
		Gzipped:     s.Gzipped + o.Gzipped,
		Brotlied:    s.Brotlied + o.Brotlied,
		RawBytes:    s.RawBytes + o.RawBytes,
		GzipBytes:   s.GzipBytes + o.GzipBytes,
		BrotliBytes: s.BrotliBytes + o.BrotliBytes,
		StoredBytes: s.StoredBytes + o.StoredBytes,

		PlainGzipBytes: s.PlainGzipBytes + o.PlainGzipBytes,
	}
}
