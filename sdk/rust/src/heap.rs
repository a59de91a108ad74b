//! The allocator and panic handler of `no_std` pods.
//!
//! The heap starts at the linker's `__heap_base` (after the stack and the
//! static data), uses the rest of the initial memory first and then grows
//! the memory with `memory.grow`, up to the pod's limit. Blocks come in
//! power-of-two size classes from 8 bytes up, aligned to their size up to
//! 4 KiB (a larger alignment is refused); a freed block goes on its
//! class's free list and the next allocation of that class reuses it. Memory
//! is never returned and blocks are never merged, which suits pods: their
//! requests allocate the same shapes again and again, and the heap stays at
//! its high-water mark. Pods are single-threaded, so there is no locking.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;

const PAGE: usize = 64 * 1024;
const MIN_CLASS: usize = 3; // 8 bytes: room for the free list's link
const CLASSES: usize = 32;
// Blocks are aligned to their size up to this: enough for any Layout
// Rust code asks for in practice, without wasting half a large block.
const MAX_ALIGN: usize = 4096;

extern "C" {
    static __heap_base: u8;
}

// memcpy, memset and memmove, which the compiler calls for copies and
// fills, come from the target's own wasi-libc (the toolchain ships it with
// the wasm32-wasi target). Only those objects are linked, and they import
// nothing.
#[link(name = "c")]
extern "C" {}

struct State {
    next: usize, // first free byte of the bump region; 0 before the first use
    end: usize,  // end of the memory
    free: [*mut u8; CLASSES],
}

/// The global allocator of `no_std` pods.
pub struct Heap(UnsafeCell<State>);

// Pods are single-threaded wasm32 modules.
unsafe impl Sync for Heap {}

fn class_of(layout: Layout) -> usize {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    (usize::BITS - (size - 1).leading_zeros()) as usize
}

impl Heap {
    unsafe fn bump(&self, class: usize) -> *mut u8 {
        let s = &mut *self.0.get();
        if s.next == 0 {
            s.next = &__heap_base as *const u8 as usize;
            s.end = wasm32::memory_size(0) * PAGE;
        }
        let size = 1usize << class;
        // Every block of a class has the same alignment, so a block from
        // the free list suits any layout of its class.
        let align = size.min(MAX_ALIGN);
        let start = (s.next + align - 1) & !(align - 1);
        let end = match start.checked_add(size) {
            Some(e) => e,
            None => return ptr::null_mut(),
        };
        if end > s.end {
            let pages = (end - s.end + PAGE - 1) / PAGE;
            if wasm32::memory_grow(0, pages) == usize::MAX {
                return ptr::null_mut();
            }
            s.end += pages * PAGE;
        }
        s.next = end;
        start as *mut u8
    }
}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let class = class_of(layout);
        if class >= CLASSES || layout.align() > MAX_ALIGN {
            return ptr::null_mut();
        }
        let s = &mut *self.0.get();
        let head = s.free[class];
        if !head.is_null() {
            s.free[class] = *(head as *mut *mut u8);
            return head;
        }
        self.bump(class)
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        let class = class_of(layout);
        let s = &mut *self.0.get();
        *(p as *mut *mut u8) = s.free[class];
        s.free[class] = p;
    }
}

#[global_allocator]
static HEAP: Heap = Heap(UnsafeCell::new(State { next: 0, end: 0, free: [ptr::null_mut(); CLASSES] }));

/// Logs "panic at file:line" and traps; the host then restarts the pod's
/// instance. The message is left out: formatting it would pull core::fmt
/// into every pod.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut line = [0u8; 160];
    let mut n = 0;
    let mut put = |b: &[u8]| {
        for &c in b {
            if n < line.len() {
                line[n] = c;
                n += 1;
            }
        }
    };
    put(b"panic");
    if let Some(loc) = info.location() {
        put(b" at ");
        put(loc.file().as_bytes());
        put(b":");
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        let mut v = loc.line();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        put(&digits[i..]);
    }
    unsafe {
        crate::sys::k32_log(crate::sys::K32_LOG_ERROR, line.as_ptr(), n as u32);
    }
    wasm32::unreachable()
}
