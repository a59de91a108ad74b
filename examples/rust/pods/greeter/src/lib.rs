//! greeter: a Rust pod of examples/rust. For GET /greet/<name> it calls the
//! echo Service (the C pod of examples/echo) with POST /echo/<name> and
//! answers JSON with the name, the node it runs on, and echo's status and
//! reply:
//!
//!   {"hello":"ada","node":"kube32-worker-1","echo_status":200,"echo":{...}}
#![no_std]

extern crate alloc;

use alloc::string::String;
use k32::{http, request, response};

fn handle() -> k32::Result<()> {
    let path = request::path();
    let name = path.trim_start_matches("/greet").trim_start_matches('/');
    let mut url = String::from("http://echo/echo/");
    url.push_str(name);

    let mut body = String::from("{\"hello\":");
    json_string(&mut body, name);
    body.push_str(",\"node\":");
    json_string(&mut body, &k32::env("NODE_NAME").unwrap_or_default());
    match http::post(&url, b"from greeter").timeout_ms(2000).send() {
        Ok(resp) => {
            body.push_str(",\"echo_status\":");
            push_u32(&mut body, resp.status as u32);
            body.push_str(",\"echo\":");
            // echo answers JSON; anything else is passed on as a string.
            match core::str::from_utf8(&resp.body) {
                Ok(s) if s.trim_start().starts_with('{') => body.push_str(s.trim_end()),
                Ok(s) => json_string(&mut body, s),
                Err(_) => body.push_str("null"),
            }
        }
        Err(e) => {
            body.push_str(",\"error\":");
            json_string(&mut body, e.name());
        }
    }
    body.push_str("}\n");
    response::respond(200, "application/json", body.as_bytes())
}

/// Appends s as a JSON string.
fn json_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends n in decimal, without core::fmt.
fn push_u32(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut v = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(d as char);
    }
}

k32::export!(handle = handle);
