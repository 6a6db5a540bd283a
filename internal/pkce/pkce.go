// Package pkce is what both ends of the OAuth flows wirecheck plays (the
// reference client and authorization server, the suite that judges an
// authorization server, the protected resource that judges a client)
// compute alike: RFC 7636's S256 code challenge, and the random strings
// they make verifiers, states, codes and secrets of.
package pkce

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// S256 is the S256 code challenge of a verifier (RFC 7636 §4.2):
// BASE64URL-ENCODE(SHA256(ASCII(code_verifier))), without padding.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Random is n random bytes as unpadded base64url: of 32 bytes, a 43
// character verifier as RFC 7636 §4.1 recommends.
func Random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
