package polite

import "net/http"

// RequestSigner signs the requests the fetcher sends, so that a site can
// verify who sent them: a User-Agent can be copied (R4), a signature made
// with the crawler's private key cannot. Package botauth has one, for Web
// Bot Auth (HTTP Message Signatures under an Ed25519 key).
//
// The fetcher calls SignRequest for every request it sends — robots.txt,
// pages, each redirect hop and each retry, a renderer's subrequests, the
// hosts of Config.Unrestricted like any other — after the request's last
// header is set and just before it is dialled, so each attempt carries a
// signature of its own. SignRequest adds headers to req and changes
// nothing else; it is called from many goroutines at once. A request it
// fails is not sent: its Result carries the error.
type RequestSigner interface {
	SignRequest(req *http.Request) error
}
