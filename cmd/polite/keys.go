package main

import (
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/politecrawler/polite/botauth"
)

// keysCommand is polite keys: the Ed25519 keys that sign the crawler's
// requests (Web Bot Auth).
//
//	polite keys new FILE             a new private key in FILE (mode 0600); prints its public JWK and thumbprint
//	polite keys directory KEYFILE... the key directory of these keys, the signing one first
func keysCommand(fs *flag.FlagSet) func(env, []string) int {
	return func(e env, args []string) int {
		if len(args) == 0 {
			return fail(e, "keys", fmt.Errorf("%w: want new FILE, or directory and one KEYFILE or more", errUsage))
		}
		switch verb, rest := args[0], args[1:]; verb {
		case "new":
			if len(rest) != 1 {
				return fail(e, "keys new", fmt.Errorf("%w: want one FILE to write the key to", errUsage))
			}
			return keysNew(e, rest[0])
		case "directory":
			if len(rest) == 0 {
				return fail(e, "keys directory", fmt.Errorf("%w: want the key files, the signing one first", errUsage))
			}
			return keysDirectory(e, rest)
		default:
			return fail(e, "keys", fmt.Errorf("%w: unknown %q: want new or directory", errUsage, verb))
		}
	}
}

// keysNew writes a new key to path and prints its public half.
func keysNew(e env, path string) int {
	key, err := botauth.GenerateKey()
	if err != nil {
		return fail(e, "keys new", err)
	}
	if err := botauth.WriteKeyFile(path, key); err != nil {
		return fail(e, "keys new", err)
	}
	jwk, _ := json.Marshal(botauth.PublicJWK(key.Public().(ed25519.PublicKey)))
	fmt.Fprintf(e.out, "wrote %s (mode 0600): keep it private\nthumbprint (keyid): %s\npublic JWK: %s\n",
		path, botauth.Thumbprint(key.Public().(ed25519.PublicKey)), jwk)
	return 0
}

// keysDirectory prints the directory document of the keys in paths.
func keysDirectory(e env, paths []string) int {
	keys := make([]ed25519.PrivateKey, 0, len(paths))
	for _, p := range paths {
		k, err := botauth.LoadKeyFile(p)
		if err != nil {
			return fail(e, "keys directory", err)
		}
		keys = append(keys, k)
	}
	d, err := botauth.NewDirectory(keys...)
	if err != nil {
		return fail(e, "keys directory", err)
	}
	fmt.Fprintf(e.out, "%s\n", d.Document())
	return 0
}
