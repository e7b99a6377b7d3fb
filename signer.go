package polite

import "net/http"

// RequestSigner signs every request the fetcher sends (each hop and retry
// too), after its last header is set, so a site can verify who sent it;
// package botauth signs for Web Bot Auth. SignRequest only adds headers and
// is called concurrently; a request it fails is not sent.
type RequestSigner interface {
	SignRequest(req *http.Request) error
}
