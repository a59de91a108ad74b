import * as sys from "./sys";

/** The K32_ERR_* name of a code, as docs/abi.md lists them; "K32_ERR_UNKNOWN" for another. */
export function errorName(code: i32): string {
  switch (code) {
    case sys.K32_ERR_PERM: return "K32_ERR_PERM";
    case sys.K32_ERR_NOENT: return "K32_ERR_NOENT";
    case sys.K32_ERR_INTR: return "K32_ERR_INTR";
    case sys.K32_ERR_IO: return "K32_ERR_IO";
    case sys.K32_ERR_TOOBIG: return "K32_ERR_TOOBIG";
    case sys.K32_ERR_NOMEM: return "K32_ERR_NOMEM";
    case sys.K32_ERR_FAULT: return "K32_ERR_FAULT";
    case sys.K32_ERR_BUSY: return "K32_ERR_BUSY";
    case sys.K32_ERR_INVAL: return "K32_ERR_INVAL";
    case sys.K32_ERR_LOOP: return "K32_ERR_LOOP";
    case sys.K32_ERR_TLS: return "K32_ERR_TLS";
    case sys.K32_ERR_NOTSUP: return "K32_ERR_NOTSUP";
    case sys.K32_ERR_TIMEOUT: return "K32_ERR_TIMEOUT";
    case sys.K32_ERR_CONNREFUSED: return "K32_ERR_CONNREFUSED";
    case sys.K32_ERR_HOSTUNREACH: return "K32_ERR_HOSTUNREACH";
    case sys.K32_ERR_CERT: return "K32_ERR_CERT";
  }
  return "K32_ERR_UNKNOWN";
}
