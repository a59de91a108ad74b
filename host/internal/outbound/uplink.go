package outbound

import (
	"bufio"
	"context"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/kube32/kube32/abi"
)

// Route is the way a node's connections to hosts outside the cluster leave
// it: the control plane's uplink, directly on the control plane (*Uplink)
// and through the control plane on a worker (*Relay), as docs/nodes.md,
// "The uplink", says.
type Route interface {
	// Names fails with abi.ErrNoEnt while no name server can be reached
	// (the uplink is down), before a name is looked up.
	Names(ctx context.Context) error
	// Dial opens a connection to the IPv4 address addr ("a.b.c.d:port").
	Dial(ctx context.Context, network, addr string) (net.Conn, error)
}

// Uplink is the control plane's uplink, its station on the Wi-Fi network:
// while it is up, the control plane's own connections to hosts outside
// leave through it and the workers' are relayed through it (NAT); while
// it is down, neither. It implements Route for the control plane's pods.
// The zero Uplink is down and logs nothing; use NewUplink.
type Uplink struct {
	// NameServer is the name server offered while the uplink is up.
	NameServer string
	// Logf receives abi.LogUplinkUp and abi.LogUplinkDown on each change;
	// nil logs nothing.
	Logf func(format string, args ...any)

	mu      sync.Mutex
	up      bool
	changed chan struct{} // closed at the next change
}

var _ Route = (*Uplink)(nil)

// NewUplink returns an uplink that starts up or down. It logs nothing at
// start: an uplink up, as serve starts it by default, tells the user
// nothing, so only the changes that follow are logged (docs/nodes.md, "The
// uplink").
func NewUplink(up bool, nameServer string, logf func(format string, args ...any)) *Uplink {
	return &Uplink{NameServer: nameServer, Logf: logf, up: up}
}

// State returns whether the uplink is up, and a channel closed at its next
// change.
func (u *Uplink) State() (up bool, changed <-chan struct{}) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.changed == nil {
		u.changed = make(chan struct{})
	}
	return u.up, u.changed
}

// Up reports whether the uplink is up.
func (u *Uplink) Up() bool {
	up, _ := u.State()
	return up
}

// Set takes the uplink up or down, and logs the change; setting the state
// it is in changes nothing.
func (u *Uplink) Set(up bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.up == up {
		return
	}
	u.up = up
	if u.changed != nil {
		close(u.changed)
		u.changed = nil
	}
	if u.Logf == nil {
		return
	}
	if up {
		// The simulator's NAT table is the boards' figure: it takes no
		// internal RAM and abi.NATTableSize of PSRAM.
		u.Logf(abi.LogUplinkUp, u.NameServer, 0, abi.NATTableSize)
	} else {
		u.Logf(abi.LogUplinkDown)
	}
}

// Names implements Route: the name server is reached through the uplink.
func (u *Uplink) Names(context.Context) error {
	if !u.Up() {
		return abi.ErrNoEnt
	}
	return nil
}

// Dial implements Route: while the uplink is down the station has no
// address and no route leads outside, so a connection fails at once with
// K32_ERR_HOSTUNREACH.
func (u *Uplink) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if !u.Up() {
		return nil, abi.ErrHostUnreach
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// SystemNameServer returns the first name server of the resolv.conf file at
// path (the one the simulator offers: the host's resolver), or Go's default,
// 127.0.0.1, when it names none.
func SystemNameServer(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "127.0.0.1"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "nameserver" {
			return fields[1]
		}
	}
	return "127.0.0.1"
}
