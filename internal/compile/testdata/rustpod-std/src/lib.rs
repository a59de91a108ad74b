// The standard library: format! and a HashMap.
use std::collections::HashMap;

fn handle() -> k32::Result<()> {
    let mut counts = HashMap::new();
    for c in k32::request::path().chars() {
        *counts.entry(c).or_insert(0u32) += 1;
    }
    let body = format!("{} distinct\n", counts.len());
    k32::response::respond(200, "text/plain", body.as_bytes())
}

k32::export!(handle = handle);
