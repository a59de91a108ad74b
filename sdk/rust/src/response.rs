//! The response of the current `k32_handle`.

use crate::error::{Error, Result};
use crate::sys;

/// Sets the status (100..599) before the first write.
pub fn status(code: u32) -> Result<()> {
    Error::check(unsafe { sys::k32_resp_status(code) }).map(|_| ())
}

/// Queues a response header until the head is sent.
pub fn header(name: &str, value: &str) -> Result<()> {
    Error::check(unsafe { sys::k32_resp_header(name.as_ptr(), name.len() as u32, value.as_ptr(), value.len() as u32) })
        .map(|_| ())
}

/// Sends the head on first use, then data as body bytes.
pub fn write(data: &[u8]) -> Result<usize> {
    Error::check(unsafe { sys::k32_resp_write(data.as_ptr(), data.len() as u32) }).map(|n| n as usize)
}

/// Sends a whole response: status, Content-Type (unless content_type is ""),
/// body.
pub fn respond(code: u32, content_type: &str, body: &[u8]) -> Result<()> {
    status(code)?;
    if !content_type.is_empty() {
        header("Content-Type", content_type)?;
    }
    write(body).map(|_| ())
}

/// Streams the file path of the pod's image bundle as the response with
/// status code; Err(K32_ERR_NOENT) sends nothing, so the pod can answer
/// otherwise.
pub fn asset(path: &str, code: u32) -> Result<()> {
    Error::check(unsafe { sys::k32_resp_asset(path.as_ptr(), path.len() as u32, code) }).map(|_| ())
}
