use core::fmt;

use crate::sys;

/// A `K32_ERR_*` code returned by a host function.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Error(pub i32);

/// The result of a host function.
pub type Result<T> = core::result::Result<T, Error>;

/// The names of the codes, as docs/abi.md lists them.
const NAMES: &[(i32, &str)] = &[
    (sys::K32_ERR_PERM, "K32_ERR_PERM"),
    (sys::K32_ERR_NOENT, "K32_ERR_NOENT"),
    (sys::K32_ERR_INTR, "K32_ERR_INTR"),
    (sys::K32_ERR_IO, "K32_ERR_IO"),
    (sys::K32_ERR_TOOBIG, "K32_ERR_TOOBIG"),
    (sys::K32_ERR_NOMEM, "K32_ERR_NOMEM"),
    (sys::K32_ERR_FAULT, "K32_ERR_FAULT"),
    (sys::K32_ERR_BUSY, "K32_ERR_BUSY"),
    (sys::K32_ERR_INVAL, "K32_ERR_INVAL"),
    (sys::K32_ERR_LOOP, "K32_ERR_LOOP"),
    (sys::K32_ERR_TLS, "K32_ERR_TLS"),
    (sys::K32_ERR_NOTSUP, "K32_ERR_NOTSUP"),
    (sys::K32_ERR_TIMEOUT, "K32_ERR_TIMEOUT"),
    (sys::K32_ERR_CONNREFUSED, "K32_ERR_CONNREFUSED"),
    (sys::K32_ERR_HOSTUNREACH, "K32_ERR_HOSTUNREACH"),
    (sys::K32_ERR_CERT, "K32_ERR_CERT"),
];

impl Error {
    /// Turns a host function's result into Ok(result) when it is not
    /// negative, else the error.
    pub fn check(ret: i32) -> Result<u32> {
        if ret < 0 {
            Err(Error(ret))
        } else {
            Ok(ret as u32)
        }
    }

    /// The code's K32_ERR_* name, or "K32_ERR_UNKNOWN".
    pub fn name(self) -> &'static str {
        for &(code, name) in NAMES {
            if code == self.0 {
                return name;
            }
        }
        "K32_ERR_UNKNOWN"
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}
