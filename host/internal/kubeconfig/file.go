package kubeconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// load reads the kubeconfig at path; a missing file is an empty config.
func load(path string) (*clientcmdapi.Config, error) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		if !isNotExist(path) {
			return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
		}
		cfg = clientcmdapi.NewConfig()
	}
	return cfg, nil
}

func save(path string, cfg *clientcmdapi.Config) error {
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	return nil
}

func isNotExist(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
