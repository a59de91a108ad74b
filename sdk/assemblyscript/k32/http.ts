// HTTP calls through k32_http_call: to a Service ("http://echo/ping",
// "http://echo.other:8080/x") or a host outside the cluster. The container
// needs capability SERVICE_CALL; without it every call fails with
// K32_ERR_PERM, as it does when a NetworkPolicy forbids it.
import * as sys from "./sys";
import { readNamed, text, utf8 } from "./buf";
import { errorName } from "./errors";

/** The response body buffer when maxBody does not say otherwise: 16 KiB. */
export const DEFAULT_MAX_BODY: i32 = 16 << 10;

/** The answer to a call. */
export class Answer {
  /** 0, or the host's K32_ERR_* code: K32_ERR_PERM, K32_ERR_NOENT, K32_ERR_TIMEOUT, … */
  error: i32 = 0;
  /** The HTTP status code; also set with K32_ERR_TOOBIG (a body cut at maxBody). */
  status: i32 = 0;
  /** The body, cut at maxBody with K32_ERR_TOOBIG. */
  body: Uint8Array = new Uint8Array(0);

  /** Whether the call got an answer (whatever its status). */
  get ok(): bool {
    return this.error == 0;
  }

  /** The K32_ERR_* name of error, "" when there is none. */
  get errorName(): string {
    return this.error == 0 ? "" : errorName(this.error);
  }

  /** The body as UTF-8 text. */
  text(): string {
    return String.UTF8.decodeUnsafe(this.body.dataStart, <usize>this.body.byteLength);
  }

  /**
   * A header of the answer (case-insensitive), or null. The host keeps the
   * headers of the last call only: ask before the next call.
   */
  header(name: string): string | null {
    return text(readNamed(sys.k32_http_header, name, 64));
  }
}

/** A request to send with call. */
export class Call {
  headers: string = "";
  body: Uint8Array = new Uint8Array(0);
  /** The largest response body to receive. */
  maxBody: i32 = DEFAULT_MAX_BODY;
  /** Bounds the whole call; 0 means the node's default (5 s). */
  timeoutMs: u32 = 0;

  constructor(public method: string, public url: string) {}

  /** Adds a request header. */
  header(name: string, value: string): Call {
    this.headers += name + ": " + value + "\r\n";
    return this;
  }

  /** Sets the request body. */
  bodyText(s: string): Call {
    this.body = Uint8Array.wrap(utf8(s));
    return this;
  }

  /** Sends the request and waits for the whole answer. */
  send(): Answer {
    const m = utf8(this.method);
    const u = utf8(this.url);
    const h = utf8(this.headers);
    const resp = new Uint8Array(this.maxBody);
    const len = new Uint32Array(1);
    const ret = sys.k32_http_call(
      changetype<usize>(m), <u32>m.byteLength,
      changetype<usize>(u), <u32>u.byteLength,
      changetype<usize>(h), <u32>h.byteLength,
      this.body.dataStart, <u32>this.body.byteLength,
      resp.dataStart, <u32>resp.byteLength, len.dataStart,
      this.timeoutMs);
    const a = new Answer();
    if (ret < 0) {
      a.error = ret;
      if (ret != sys.K32_ERR_TOOBIG) return a;
      a.status = sys.k32_http_status();
    } else {
      a.status = ret;
    }
    a.body = resp.subarray(0, <i32>min(len[0], <u32>resp.length));
    return a;
  }
}

/** A GET of url. */
export function get(url: string): Answer {
  return new Call("GET", url).send();
}

/** A POST of body to url. */
export function post(url: string, contentType: string, body: string): Answer {
  return new Call("POST", url).header("Content-Type", contentType).bodyText(body).send();
}
