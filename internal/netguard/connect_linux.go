package netguard

import (
	"sync"
	"syscall"
	"time"
)

// On Linux the socket itself bounds a connect (R10.2): with TCP_SYNCNT at
// synRetries the kernel gives up about 7 s after the first SYN. How many
// SYNs it sends meanwhile depends on the kernel (newer ones resend at a
// steady pace first). No timer is set per dial.
const synRetries = 2

// synRetriesWork says whether this kernel takes TCP_SYNCNT; one that does
// not (a sandbox that stands in for Linux) gets connectTimeout's timer.
var synRetriesWork = sync.OnceValue(func() bool {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	return setSynRetriesOn(fd) == nil
})

// connectBound returns the dialler's timeout and what to set on each
// socket before it connects.
func connectBound() (time.Duration, func(syscall.RawConn) error) {
	if !synRetriesWork() {
		return connectTimeout, nil
	}
	return 0, setSynRetries
}

func setSynRetries(c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) { err = setSynRetriesOn(int(fd)) }); cerr != nil {
		return cerr
	}
	return err
}

func setSynRetriesOn(fd int) error {
	return syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_SYNCNT, synRetries)
}
