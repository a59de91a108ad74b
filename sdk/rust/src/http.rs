//! HTTP calls through `k32_http_call`: to a Service ("http://echo/ping",
//! "http://echo.other:8080/x") or a host outside the cluster. The container
//! needs capability SERVICE_CALL; without it every call is Err(K32_ERR_PERM).
//!
//! ```ignore
//! let resp = k32::http::get("http://c-echo/ping").timeout_ms(2000).send()?;
//! if resp.status == 200 { /* resp.body */ }
//! ```

use alloc::string::String;
use alloc::vec::Vec;

use crate::buf;
use crate::error::{Error, Result};
use crate::sys;

/// The response body buffer when max_body does not say otherwise: 16 KiB.
pub const DEFAULT_MAX_BODY: usize = 16 << 10;

/// A request to send.
pub struct Request<'a> {
    method: &'a str,
    url: &'a str,
    headers: String,
    body: &'a [u8],
    max_body: usize,
    timeout_ms: u32,
}

/// The answer to a call.
pub struct Response {
    /// The HTTP status code.
    pub status: u16,
    /// The body, cut at max_body when send returned Err(K32_ERR_TOOBIG).
    pub body: Vec<u8>,
}

/// A request with method and url.
pub fn request<'a>(method: &'a str, url: &'a str) -> Request<'a> {
    Request { method, url, headers: String::new(), body: &[], max_body: DEFAULT_MAX_BODY, timeout_ms: 0 }
}

/// A GET request.
pub fn get(url: &str) -> Request<'_> {
    request("GET", url)
}

/// A POST request with body.
pub fn post<'a>(url: &'a str, body: &'a [u8]) -> Request<'a> {
    request("POST", url).body(body)
}

impl<'a> Request<'a> {
    /// Adds a request header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push_str(name);
        self.headers.push_str(": ");
        self.headers.push_str(value);
        self.headers.push_str("\r\n");
        self
    }

    /// Sets the request body.
    pub fn body(mut self, body: &'a [u8]) -> Self {
        self.body = body;
        self
    }

    /// Sets the largest response body to receive (default DEFAULT_MAX_BODY).
    pub fn max_body(mut self, n: usize) -> Self {
        self.max_body = n;
        self
    }

    /// Bounds the whole call; 0 means the node's default (5 s).
    pub fn timeout_ms(mut self, ms: u32) -> Self {
        self.timeout_ms = ms;
        self
    }

    /// Sends the request and waits for the whole response. An error is the
    /// host's code: K32_ERR_PERM, K32_ERR_TIMEOUT, K32_ERR_NOENT, …; on
    /// K32_ERR_TOOBIG, [`last_status`] still has the status.
    pub fn send(self) -> Result<Response> {
        let mut body: Vec<u8> = Vec::with_capacity(self.max_body);
        let mut len: u32 = 0;
        let ret = unsafe {
            sys::k32_http_call(
                self.method.as_ptr(),
                self.method.len() as u32,
                self.url.as_ptr(),
                self.url.len() as u32,
                self.headers.as_ptr(),
                self.headers.len() as u32,
                self.body.as_ptr(),
                self.body.len() as u32,
                body.as_mut_ptr(),
                body.capacity() as u32,
                &mut len,
                self.timeout_ms,
            )
        };
        let status = Error::check(ret)?;
        // The host wrote len bytes, at most the capacity.
        unsafe { body.set_len((len as usize).min(body.capacity())) };
        Ok(Response { status: status as u16, body })
    }
}

impl Response {
    /// A header of the response (case-insensitive), or None. The host keeps
    /// the headers of the last call only: ask before the next call.
    pub fn header(&self, name: &str) -> Option<String> {
        buf::string(64, |out, cap| unsafe { sys::k32_http_header(name.as_ptr(), name.len() as u32, out, cap) }).ok()
    }
}

/// The status of the last call, also after K32_ERR_TOOBIG.
pub fn last_status() -> i32 {
    unsafe { sys::k32_http_status() }
}
