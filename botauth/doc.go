// Package botauth gives a polite crawler an identity a site can verify:
// every request signed with HTTP Message Signatures (RFC 9421) under an
// Ed25519 key, and the public keys published where a site looks for them.
// A User-Agent can be copied; a signature cannot.
//
// It follows draft-ietf-webbotauth-httpsig-protocol-01 (October 2026, the
// Web Bot Auth WG's protocol, which replaced
// draft-meunier-web-bot-auth-architecture and took in the key directory of
// draft-meunier-http-message-signatures-directory); package agentcard
// makes the Signature Agent Card of draft-meunier-webbotauth-registry-04.
// Keys are JWKs of RFC 8037 (OKP, Ed25519), named by their RFC 7638
// thumbprint. The package imports nothing of polite: the fetcher knows a
// Signer only as a polite.RequestSigner.
//
// Two parts, used together:
//
//   - A Signer signs each request: set it as polite.Config.Signer, and the
//     fetcher signs every request it sends (robots.txt, pages, each
//     redirect hop, each retry, a renderer's subrequests) just before it
//     is dialled.
//   - A Directory is the http.Handler a site mounts at DirectoryPath on the
//     origin its Signer names: the JWK Set of the keys, each of which signs
//     the response too.
//
// Keys rotate by overlap: the Directory lists the signing key and the next
// one (or the last one), and the Signer is made with whichever signs now.
//
// Key files (WriteKeyFile, LoadKeyFile) hold a private JWK, readable by
// their owner only.
package botauth
