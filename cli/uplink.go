package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kube32/kube32/abi"
)

// uplinkOptions are the options of `kube32 uplink`.
type uplinkOptions struct {
	IO    IOStreams
	API   string // the control plane's API server, http://HOST:PORT
	Token string // the cluster token; "" when the API server needs none
	// Set is "up" or "down" to change the uplink, "" to print its state.
	Set string
}

func newUplinkCommand(io IOStreams) *cobra.Command {
	opts := uplinkOptions{IO: io}
	var tokenFile string
	cmd := &cobra.Command{
		Use:   "uplink [up|down]",
		Short: "Show, take down or bring up the control plane's uplink under kube32 serve",
		Long: `Show the control plane's uplink (its station on the Wi-Fi network, through
which every node reaches hosts outside the cluster), or take it down or up
while kube32 serve runs, to rehearse how the app behaves when the boards
lose the network. It prints the state after the change.`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"up", "down"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if args[0] != "up" && args[0] != "down" {
					return &usageError{fmt.Errorf("uplink %q: want up or down", args[0])}
				}
				opts.Set = args[0]
			}
			var err error
			if opts.Token, err = resolveToken(opts.Token, tokenFile); err != nil {
				return err
			}
			return runUplink(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.API, "api", "http://127.0.0.1:6443", "the control plane's API server (kube32 serve's --api-port)")
	addTokenFlags(f, &opts.Token, &tokenFile, "the cluster token (serve's --token)")
	return cmd
}

// runUplink reads or sets the uplink of the control plane at opts.API and
// prints its state, "uplink up" or "uplink down".
func runUplink(ctx context.Context, opts uplinkOptions) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	method, body := http.MethodGet, []byte(nil)
	if opts.Set != "" {
		method = http.MethodPut
		body, _ = json.Marshal(map[string]bool{"up": opts.Set == "up"})
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(opts.API, "/")+abi.UplinkPath, bytes.NewReader(body))
	if err != nil {
		return &usageError{fmt.Errorf("--api %q: %w", opts.API, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	if opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+opts.Token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("uplink: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var state struct {
		Up *bool `json:"up"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(answer, &state) != nil || state.Up == nil {
		return fmt.Errorf("uplink: %s answered %s: %s", opts.API, resp.Status, strings.TrimSpace(string(answer)))
	}
	if *state.Up {
		fmt.Fprintln(opts.IO.Out, "uplink up")
	} else {
		fmt.Fprintln(opts.IO.Out, "uplink down")
	}
	return nil
}
