// Reads a WARC with webrecorder's warcio and prints one JSON line per
// record: its type, target, HTTP status and Content-Encoding, whether its
// WARC-Payload-Digest matches the payload as stored, and the payload.
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { WARCParser } from "warcio";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(buf) {
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  while (out.length % 8) out += "=";
  return out;
}

const parser = new WARCParser(createReadStream(process.argv[2]));
for await (const record of parser) {
  const payload = await record.readFully(false);
  const digest = record.warcHeader("WARC-Payload-Digest") || "";
  const sha1 = "sha1:" + base32(createHash("sha1").update(payload).digest());
  console.log(JSON.stringify({
    type: record.warcType,
    target: record.warcTargetURI || "",
    status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : 0,
    contentEncoding: record.httpHeaders ? record.httpHeaders.headers.get("Content-Encoding") || "" : "",
    digest,
    digestOK: digest === "" || digest === sha1,
    computed: sha1,
    payload: Buffer.from(payload).toString("base64"),
  }));
}
