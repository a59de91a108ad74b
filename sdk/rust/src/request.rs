//! The request of the current `k32_handle`.

use alloc::string::String;
use alloc::vec::Vec;

use crate::buf;
use crate::error::{Error, Result};
use crate::sys;

/// The request method ("GET", "POST", …).
pub fn method() -> String {
    buf::string(8, |out, cap| unsafe { sys::k32_req_method(out, cap) }).unwrap_or_default()
}

/// The request path as received (escaped form), without the query.
pub fn path() -> String {
    buf::string(64, |out, cap| unsafe { sys::k32_req_path(out, cap) }).unwrap_or_default()
}

/// The raw query without '?'; "" when there is none.
pub fn query() -> String {
    buf::string(64, |out, cap| unsafe { sys::k32_req_query(out, cap) }).unwrap_or_default()
}

/// The request header name (case-insensitive; repeated headers joined with
/// ", "), or None.
pub fn header(name: &str) -> Option<String> {
    buf::string(64, |out, cap| unsafe { sys::k32_req_header(name.as_ptr(), name.len() as u32, out, cap) }).ok()
}

/// Every request header as (name, value) pairs, in the order received.
pub fn headers() -> Vec<(String, String)> {
    let raw = buf::string(256, |out, cap| unsafe { sys::k32_req_headers(out, cap) }).unwrap_or_default();
    raw.split("\r\n")
        .filter_map(|line| {
            let mut kv = line.splitn(2, ':');
            let name = kv.next()?;
            let value = kv.next()?;
            Some((String::from(name), String::from(value.trim())))
        })
        .collect()
}

/// Reads the next bytes of the body into out; 0 at the end.
pub fn read(out: &mut [u8]) -> Result<usize> {
    Error::check(unsafe { sys::k32_req_read(out.as_mut_ptr(), out.len() as u32) }).map(|n| n as usize)
}

/// The whole request body (the host caps it at 1 MiB).
pub fn body() -> Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        let n = read(&mut chunk)?;
        if n == 0 {
            return Ok(body);
        }
        body.extend_from_slice(&chunk[..n]);
    }
}
