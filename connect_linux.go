package polite

import "syscall"

// On Linux the socket itself bounds a connect (R10.2): the kernel sends
// the SYN synRetries more times and gives up 7 s after the first (with
// its initial retransmission timeout of 1 s: 1 + 2 + 4). No timer is set
// per dial.
const (
	connectTimeout = 0
	synRetries     = 2
)

// boundConnect sets the socket's SYN retries before it connects.
func boundConnect(c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_SYNCNT, synRetries)
	}); cerr != nil {
		return cerr
	}
	return err
}
