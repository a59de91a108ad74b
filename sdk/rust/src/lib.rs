//! The kube32 pod SDK for Rust: the host functions of `k32_app_abi` (docs/abi.md)
//! as safe functions, with no dependencies.
//!
//! The crate is `no_std` with `alloc`: it brings a small allocator over
//! `memory.grow` ([`heap`]) and a panic handler that logs where the pod
//! panicked and traps. With the `std` feature it links the standard library
//! instead, which uses its own. `kube32 build` picks the feature from the
//! pod: a crate root that says `#![no_std]` gets the `no_std` SDK.
//!
//! A pod defines its callbacks with [`export!`]:
//!
//! ```ignore
//! #![no_std]
//! use k32::response;
//!
//! fn handle() -> k32::Result<()> {
//!     response::respond(200, "text/plain", b"hello\n")
//! }
//!
//! k32::export!(handle = handle);
//! ```
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

#[cfg(not(feature = "std"))]
pub mod heap;
pub mod sys;

mod buf;
mod error;
mod export;

pub mod channel;
pub mod http;
pub mod request;
pub mod response;

pub use error::{Error, Result};
pub use export::Exit;

use alloc::string::String;

/// Writes one line to the pod's log (kubectl logs) at a `K32_LOG_*` level.
pub fn log(level: i32, msg: &str) {
    unsafe {
        sys::k32_log(level, msg.as_ptr(), msg.len() as u32);
    }
}

/// Logs msg at level debug.
pub fn debug(msg: &str) {
    log(sys::K32_LOG_DEBUG, msg)
}

/// Logs msg at level info.
pub fn info(msg: &str) {
    log(sys::K32_LOG_INFO, msg)
}

/// Logs msg at level warn.
pub fn warn(msg: &str) {
    log(sys::K32_LOG_WARN, msg)
}

/// Logs msg at level error.
pub fn error(msg: &str) {
    log(sys::K32_LOG_ERROR, msg)
}

/// The value of the environment variable key (the container's env and the
/// injected Service variables), or None when it is not set.
pub fn env(key: &str) -> Option<String> {
    buf::string(32, |out, cap| unsafe { sys::k32_env_get(key.as_ptr(), key.len() as u32, out, cap) }).ok()
}

/// Wall clock, milliseconds since the Unix epoch.
pub fn time_ms() -> i64 {
    unsafe { sys::k32_time_ms() }
}

/// Sleeps for ms milliseconds; Err(K32_ERR_INTR) when the pod is being
/// stopped.
pub fn sleep_ms(ms: u32) -> Result<()> {
    Error::check(unsafe { sys::k32_sleep_ms(ms) }).map(|_| ())
}

/// Fills out with cryptographic random bytes.
pub fn random(out: &mut [u8]) -> Result<()> {
    Error::check(unsafe { sys::k32_random(out.as_mut_ptr(), out.len() as u32) }).map(|_| ())
}
