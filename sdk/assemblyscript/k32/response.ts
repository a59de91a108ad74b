import * as sys from "./sys";
import { utf8 } from "./buf";

/**
 * The response of the current k32_handle. Each method returns 0 or the
 * host's K32_ERR_* code (K32_ERR_INVAL for a status outside 100..599 or
 * after the head is sent; K32_ERR_IO once the client has not taken the
 * response in time).
 */
export class Response {
  /** Sets the status (100..599) before the first write. */
  status(code: u32): i32 {
    return sys.k32_resp_status(code);
  }

  /** Queues a response header until the head is sent. */
  header(name: string, value: string): i32 {
    const n = utf8(name);
    const v = utf8(value);
    return sys.k32_resp_header(changetype<usize>(n), <u32>n.byteLength, changetype<usize>(v), <u32>v.byteLength);
  }

  /** Sends the head on first use, then s as UTF-8 body bytes. */
  write(s: string): i32 {
    const b = utf8(s);
    return okOr(sys.k32_resp_write(changetype<usize>(b), <u32>b.byteLength));
  }

  /** Sends the head on first use, then data as body bytes. */
  writeBytes(data: Uint8Array): i32 {
    return okOr(sys.k32_resp_write(data.dataStart, <u32>data.byteLength));
  }

  /** A whole response: status, Content-Type (unless contentType is ""), body. */
  send(code: u32, contentType: string, body: string): i32 {
    let r = this.status(code);
    if (r == 0 && contentType.length > 0) r = this.header("Content-Type", contentType);
    if (r == 0) r = this.write(body);
    return r;
  }

  /**
   * Streams the file path of the pod's image bundle as the response with
   * status code; K32_ERR_NOENT sends nothing, so the pod can answer otherwise.
   */
  asset(path: string, code: u32): i32 {
    const p = utf8(path);
    return sys.k32_resp_asset(changetype<usize>(p), <u32>p.byteLength, code);
  }
}

// okOr turns k32_resp_write's count into 0, keeping a negative code.
function okOr(n: i32): i32 {
  return n < 0 ? n : 0;
}
