// kube32 build compiles every AssemblyScript pod with this file as a library
// (--lib) and --use abort=~lib/k32_hooks/k32Abort: a failed assertion, a
// throw, an index out of range or the runtime's "allocation too large" end
// here, are logged through k32_log with their file and line, and trap. The
// node then starts a fresh instance for the next callback, as after any trap
// (docs/assemblyscript.md). trace and Math.random's seed come here too, so
// that a pod imports nothing but module k32.
import * as sys from "k32/sys";

/** AssemblyScript's abort, routed to the pod's log. */
export function k32Abort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let s = "abort: " + (message == null ? "(no message)" : message!);
  if (fileName != null) s += " at " + fileName! + ":" + line.toString() + ":" + column.toString();
  const b = String.UTF8.encode(s);
  sys.k32_log(sys.K32_LOG_ERROR, changetype<usize>(b), <u32>b.byteLength);
  unreachable();
}

/** AssemblyScript's trace, routed to the pod's log at level debug. */
export function k32Trace(message: string, n: i32 = 0, a0: f64 = 0, a1: f64 = 0, a2: f64 = 0, a3: f64 = 0, a4: f64 = 0): void {
  let s = "trace: " + message;
  if (n > 0) s += " " + a0.toString();
  if (n > 1) s += ", " + a1.toString();
  if (n > 2) s += ", " + a2.toString();
  if (n > 3) s += ", " + a3.toString();
  if (n > 4) s += ", " + a4.toString();
  const b = String.UTF8.encode(s);
  sys.k32_log(sys.K32_LOG_DEBUG, changetype<usize>(b), <u32>b.byteLength);
}

/** The seed of Math.random, from the host's random bytes. */
export function k32Seed(): f64 {
  const b = new Uint64Array(1);
  sys.k32_random(b.dataStart, 8);
  return <f64>(b[0] >>> 11);
}
