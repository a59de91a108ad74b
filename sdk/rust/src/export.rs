//! The pod's exports. [`export!`] defines the ABI's entry points over plain
//! Rust functions:
//!
//! ```ignore
//! k32::export!(init = start, handle = handle, event = on_event, main = run);
//! ```
//!
//! Each name is optional, and each function takes no argument and returns
//! anything that is [`Exit`]: `()`, an `i32`, or a `k32::Result<()>` (an
//! error returns its K32_ERR_* code). `handle` becomes `k32_handle`, `event`
//! `k32_event`, `init` `k32_init` (non-zero fails the container start) and
//! `main` `k32_main`. A pod without `#[no_mangle]` functions of its own needs
//! nothing else.

use crate::error::Result;

/// What a callback returns, as the i32 of its export.
pub trait Exit {
    /// The export's return value.
    fn code(self) -> i32;
}

impl Exit for () {
    fn code(self) -> i32 {
        0
    }
}

impl Exit for i32 {
    fn code(self) -> i32 {
        self
    }
}

impl<T: Exit> Exit for Result<T> {
    fn code(self) -> i32 {
        match self {
            Ok(v) => v.code(),
            Err(e) => e.0,
        }
    }
}

/// Defines the pod's exports; see the module documentation of `export`.
#[macro_export]
macro_rules! export {
    ($($kind:ident = $f:path),+ $(,)?) => {
        $( $crate::__export_one!($kind, $f); )+
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __export_one {
    (handle, $f:path) => {
        #[no_mangle]
        pub extern "C" fn k32_handle() -> i32 {
            $crate::Exit::code($f())
        }
    };
    (event, $f:path) => {
        #[no_mangle]
        pub extern "C" fn k32_event() -> i32 {
            $crate::Exit::code($f())
        }
    };
    (init, $f:path) => {
        #[no_mangle]
        pub extern "C" fn k32_init() -> i32 {
            $crate::Exit::code($f())
        }
    };
    (main, $f:path) => {
        #[no_mangle]
        pub extern "C" fn k32_main() -> i32 {
            $crate::Exit::code($f())
        }
    };
}
