// Reading the ABI's getters: (..., out, cap) copies min(len, cap) bytes and
// returns the full length, so a result past cap means "again, with room".

/** A getter with no argument but its buffer. */
export type Getter = (out: usize, cap: u32) => i32;
/** A getter that takes a name first (a header, an environment variable). */
export type NamedGetter = (name: usize, nameLen: u32, out: usize, cap: u32) => i32;

/** What a getter gave: its bytes, or the negative K32_ERR_* code. */
export class Got {
  constructor(public bytes: ArrayBuffer | null, public code: i32) {}
}

/** Calls get with a buffer of hint bytes, and again with room for the whole value. */
export function read(get: Getter, hint: i32): Got {
  let buf = new ArrayBuffer(hint);
  let n = get(changetype<usize>(buf), <u32>hint);
  if (n > hint) {
    buf = new ArrayBuffer(n);
    n = get(changetype<usize>(buf), <u32>n);
  }
  if (n < 0) return new Got(null, n);
  return new Got(buf.slice(0, n), 0);
}

/** read for a getter that takes a name. */
export function readNamed(get: NamedGetter, name: string, hint: i32): Got {
  const key = String.UTF8.encode(name);
  let buf = new ArrayBuffer(hint);
  let n = get(changetype<usize>(key), <u32>key.byteLength, changetype<usize>(buf), <u32>hint);
  if (n > hint) {
    buf = new ArrayBuffer(n);
    n = get(changetype<usize>(key), <u32>key.byteLength, changetype<usize>(buf), <u32>n);
  }
  if (n < 0) return new Got(null, n);
  return new Got(buf.slice(0, n), 0);
}

/** The UTF-8 text of what a getter gave, or null for an error. */
export function text(got: Got): string | null {
  const b = got.bytes;
  if (b == null) return null;
  return String.UTF8.decode(b);
}

/** A string as UTF-8 bytes for the host. */
export function utf8(s: string): ArrayBuffer {
  return String.UTF8.encode(s);
}
