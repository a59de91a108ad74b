package outbound

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"

	"github.com/kube32/kube32/abi"
)

// dialErrno maps a failed connect to the code the pod gets.
func dialErrno(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return abi.ErrConnRefused
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return abi.ErrHostUnreach
	}
	return IOErrno(ctx, err)
}

// ioErrno maps a failure once connected (or a connect failure of no special
// kind): TIMEOUT when ctx's deadline passed, ctx's error when it was
// cancelled (the pod is stopping), an Errno passed on as it is, IO
// otherwise.
func IOErrno(ctx context.Context, err error) error {
	var code abi.Errno
	switch {
	case errors.As(err, &code):
		return code
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err() // cancelled: the pod is stopping
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		// The connection's deadline is ctx's and may fire a hair before it.
		return abi.ErrTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return abi.ErrTimeout
	}
	return abi.ErrIO
}
