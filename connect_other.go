//go:build !linux

package polite

import (
	"syscall"
	"time"
)

// connectTimeout bounds a connect where the socket cannot (R10.2): a
// timer per dial.
const connectTimeout = 10 * time.Second

// boundConnect has nothing to set: connectTimeout bounds the connect.
func boundConnect(syscall.RawConn) error { return nil }
