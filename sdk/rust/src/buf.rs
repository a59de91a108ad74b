//! Calling the ABI's getters, which copy min(len, cap) bytes and return the
//! full length: try a buffer of a likely size, and call again with the exact
//! size when the value was longer.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Result};

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

/// Like bytes, for text; invalid UTF-8 is replaced, as the host's strings
/// are UTF-8 already.
pub(crate) fn string(hint: usize, get: impl Fn(*mut u8, u32) -> i32) -> Result<String> {
    let b = bytes(hint, get)?;
    match String::from_utf8(b) {
        Ok(s) => Ok(s),
        Err(e) => Ok(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}
