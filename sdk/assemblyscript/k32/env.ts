import * as sys from "./sys";
import { readNamed, text } from "./buf";

/**
 * The value of the environment variable key (the container's env and the
 * injected Service variables), or null when it is not set.
 */
export function env(key: string): string | null {
  return text(readNamed(sys.k32_env_get, key, 32));
}

/** Wall clock, milliseconds since the Unix epoch. */
export function timeMs(): i64 {
  return sys.k32_time_ms();
}

/** Sleeps for ms milliseconds: 0, or K32_ERR_INTR when the pod is being stopped. */
export function sleepMs(ms: u32): i32 {
  return sys.k32_sleep_ms(ms);
}

/** Fills out with cryptographic random bytes: 0, or a K32_ERR_* code. */
export function random(out: Uint8Array): i32 {
  return sys.k32_random(out.dataStart, <u32>out.byteLength);
}
