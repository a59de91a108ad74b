#![no_std]

extern crate alloc;

use alloc::vec::Vec;

// Allocates past the initial memory, so the heap must grow, frees, and
// answers the path.
fn handle() -> k32::Result<()> {
    let mut big: Vec<u8> = Vec::new();
    big.resize(200 << 10, 7);
    let sum: u32 = big.iter().map(|&b| b as u32).sum();
    drop(big);
    let mut body = k32::request::path();
    body.push(' ');
    body.push(if sum == 7 * (200 << 10) { 'y' } else { 'n' });
    k32::response::respond(200, "text/plain", body.as_bytes())
}

k32::export!(handle = handle);
