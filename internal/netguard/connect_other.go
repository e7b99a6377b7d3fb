//go:build !linux

package netguard

import (
	"syscall"
	"time"
)

// connectBound returns the dialler's timeout and what to set on each
// socket before it connects: here a timer per dial bounds the connect
// (R10.2), and nothing is set.
func connectBound() (time.Duration, func(syscall.RawConn) error) {
	return connectTimeout, nil
}
