import * as sys from "./sys";
import { utf8 } from "./buf";

/** Writes one line to the pod's log (kubectl logs) at a K32_LOG_* level. */
export function log(level: i32, msg: string): void {
  const b = utf8(msg);
  sys.k32_log(level, changetype<usize>(b), <u32>b.byteLength);
}

/** Logs msg at level debug. */
export function debug(msg: string): void { log(sys.K32_LOG_DEBUG, msg); }
/** Logs msg at level info. */
export function info(msg: string): void { log(sys.K32_LOG_INFO, msg); }
/** Logs msg at level warn. */
export function warn(msg: string): void { log(sys.K32_LOG_WARN, msg); }
/** Logs msg at level error. */
export function error(msg: string): void { log(sys.K32_LOG_ERROR, msg); }
