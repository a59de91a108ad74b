package testpods

import (
	"strconv"

	"github.com/kube32/kube32/abi"
)

// Code is e as the test pods print it, in decimal: "-1" for abi.ErrPerm.
func Code(e abi.Errno) string {
	return strconv.Itoa(int(e))
}

// CallRC starts the relay pod's line for a call that returned e:
// "call rc=-1 " for abi.ErrPerm.
func CallRC(e abi.Errno) string {
	return "call rc=" + Code(e) + " "
}
