package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// TokenEnv is the environment variable that gives the cluster token when
// neither --token nor --token-file does: unlike --token, neither shows it
// to other users of the machine in the process list (docs/cli.md).
const TokenEnv = "KUBE32_TOKEN"

// addTokenFlags adds --token (into token) and --token-file (into file).
func addTokenFlags(f *pflag.FlagSet, token, file *string, usage string) {
	f.StringVar(token, "token", "", usage+"; visible in the process list: prefer --token-file or $"+TokenEnv)
	f.StringVar(file, "token-file", "", "file holding the cluster token (its first line), instead of --token")
}

// resolveToken is the cluster token of a command: --token, else the first
// line of --token-file, else $KUBE32_TOKEN, else "" (none). Both flags at
// once are a usage mistake; an unreadable or empty file an error naming it.
func resolveToken(token, file string) (string, error) {
	switch {
	case token != "" && file != "":
		return "", &usageError{fmt.Errorf("--token and --token-file: give one of them")}
	case token != "":
		return token, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if t := strings.TrimSpace(first); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("--token-file %s: its first line holds no token", file)
	}
	return strings.TrimSpace(os.Getenv(TokenEnv)), nil
}
