import * as sys from "./sys";
import { read, readNamed, text } from "./buf";

/** The request of the current k32_handle. */
export class Request {
  /** The request method ("GET", "POST", …). */
  get method(): string {
    return orEmpty(text(read(sys.k32_req_method, 8)));
  }

  /** The request path as received (escaped form), without the query. */
  get path(): string {
    return orEmpty(text(read(sys.k32_req_path, 64)));
  }

  /** The raw query without '?'; "" when there is none. */
  get query(): string {
    return orEmpty(text(read(sys.k32_req_query, 64)));
  }

  /** The header name (case-insensitive; repeated headers joined with ", "), or null. */
  header(name: string): string | null {
    return text(readNamed(sys.k32_req_header, name, 64));
  }

  /** Every header as [name, value] pairs, in the order received. */
  headers(): string[][] {
    const raw = orEmpty(text(read(sys.k32_req_headers, 256)));
    const out = new Array<string[]>();
    const lines = raw.split("\r\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      out.push([line.substring(0, colon), line.substring(colon + 1).trim()]);
    }
    return out;
  }

  /** Reads the next bytes of the body into out: how many, 0 at the end, or a K32_ERR_* code. */
  read(out: Uint8Array): i32 {
    return sys.k32_req_read(out.dataStart, <u32>out.byteLength);
  }

  /** The whole body (the host caps it at 1 MiB); an empty one after an error. */
  body(): Uint8Array {
    let body = new Uint8Array(0);
    const chunk = new Uint8Array(512);
    while (true) {
      const n = this.read(chunk);
      if (n <= 0) return body;
      const more = new Uint8Array(body.length + n);
      more.set(body);
      more.set(chunk.subarray(0, n), body.length);
      body = more;
    }
  }

  /** The whole body as UTF-8 text. */
  text(): string {
    const b = this.body();
    return String.UTF8.decodeUnsafe(b.dataStart, <usize>b.byteLength);
  }
}

function orEmpty(s: string | null): string {
  return s == null ? "" : s;
}
