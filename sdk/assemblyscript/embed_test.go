package assdk_test

import (
	"io/fs"

	assdk "github.com/kube32/kube32/sdk/assemblyscript"
)

func readEmbedded(path string) ([]byte, error) { return fs.ReadFile(assdk.Source, path) }
