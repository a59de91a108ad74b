//! Calling the ABI's getters, which copy min(len, cap) bytes and return the
//! full length: try a buffer of a likely size, and call again with the exact
//! size when the value was longer.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::sys;

/// The whole value of getter get, starting with a buffer of hint bytes.
pub(crate) fn bytes(hint: usize, get: impl Fn(*mut u8, u32) -> i32) -> Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::with_capacity(hint);
    loop {
        let cap = out.capacity();
        let n = Error::check(get(out.as_mut_ptr(), cap as u32))? as usize;
        if n <= cap {
            // The host wrote n bytes.
            unsafe { out.set_len(n) };
            return Ok(out);
        }
        out.reserve_exact(n);
    }
}

/// Like bytes, for text: Err(K32_ERR_INVAL) when the value is not UTF-8
/// (a header may carry other bytes; read it with the sys functions). No
/// lossy conversion, which would add its code to every pod.
pub(crate) fn string(hint: usize, get: impl Fn(*mut u8, u32) -> i32) -> Result<String> {
    String::from_utf8(bytes(hint, get)?).map_err(|_| Error(sys::K32_ERR_INVAL))
}
