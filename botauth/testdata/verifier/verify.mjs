// verify.mjs checks signed requests with Cloudflare's web-bot-auth
// verifier, against the keys of a live key directory.
//
//   node verify.mjs CASES.json
//
// CASES.json: {"directory": URL, "requests": [{"name", "authority",
// "path", "headers": {name: value}}]}. The directory is fetched once; its
// media type is checked, each key's thumbprint is recomputed, and each
// key's proof on the response is verified. Each request is then verified
// by web-bot-auth's verify, its key looked up by keyid in the directory.
// One JSON line is printed per check: {"name", "ok", "error"}.
import { readFileSync } from "node:fs";
import { verify, jwkToKeyID, helpers, MediaType } from "web-bot-auth";
import { verifierFromJWK } from "web-bot-auth/crypto";
import * as httpsig from "http-message-sig";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = (name, err) =>
  console.log(JSON.stringify({ name, ok: !err, error: err ? String(err.message ?? err) : "" }));

const dirURL = new URL(cases.directory);
const resp = await fetch(dirURL, { headers: { Accept: MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY } });
const body = await resp.text();
const directory = JSON.parse(body);
out("directory media type", resp.headers.get("content-type") === MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY
  ? null : new Error(`content-type ${resp.headers.get("content-type")}`));

// Each key's thumbprint, by code that is not polite's.
for (const key of directory.keys) {
  const id = await jwkToKeyID(key, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
  out(`thumbprint ${key.kid}`, id === key.kid ? null : new Error(`kid ${key.kid}, thumbprint ${id}`));
}

// Each key's proof on the directory response: one member per key, checked
// one at a time (http-message-sig verifies a single signature), over the
// request's @authority and the response's Content-Digest, whose value is
// checked against the body too.
const digest = resp.headers.get("content-digest");
const sha = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
out("directory content-digest", digest === `sha-256=:${btoa(String.fromCharCode(...sha))}:`
  ? null : new Error(`content-digest ${digest}`));
const inputs = resp.headers.get("signature-input").split(", ");
const sigs = resp.headers.get("signature").split(", ");
for (let i = 0; i < inputs.length; i++) {
  const name = `directory proof ${i}`;
  try {
    const message = {
      request: { method: "GET", url: dirURL.href, headers: {} },
      response: { status: resp.status, headers: { "content-digest": digest, "signature-input": inputs[i], signature: sigs[i] } },
    };
    await httpsig.verify(message, async (data, signature, params) => {
      if (params.tag !== "http-message-signatures-directory") throw new Error(`tag ${params.tag}`);
      const key = directory.keys.find((k) => k.kid === params.keyid);
      if (!key) throw new Error(`key ${params.keyid} not in the directory`);
      return (await verifierFromJWK(key))(data, signature, params);
    });
    out(name, null);
  } catch (err) {
    out(name, err);
  }
}

for (const c of cases.requests) {
  try {
    const request = new Request(`http://${c.authority}${c.path}`, { headers: c.headers });
    await verify(request, async (data, signature, params) => {
      const key = directory.keys.find((k) => k.kid === params.keyid);
      if (!key) throw new Error(`key ${params.keyid} not in the directory`);
      return (await verifierFromJWK(key))(data, signature, params);
    });
    out(c.name, null);
  } catch (err) {
    out(c.name, err);
  }
}
