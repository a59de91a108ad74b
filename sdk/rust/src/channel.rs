//! Channel topics: publishing, and the message of the current `k32_event`.

use alloc::string::String;
use alloc::vec::Vec;

use crate::buf;
use crate::error::{Error, Result};
use crate::sys;

/// Publishes data on topic, cluster-wide. Needs capability CHANNEL_IPC.
pub fn publish(topic: &str, data: &[u8]) -> Result<()> {
    Error::check(unsafe { sys::k32_publish(topic.as_ptr(), topic.len() as u32, data.as_ptr(), data.len() as u32) })
        .map(|_| ())
}

/// Inside `k32_event`: the message's topic.
pub fn event_topic() -> String {
    buf::string(32, |out, cap| unsafe { sys::k32_event_topic(out, cap) }).unwrap_or_default()
}

/// Inside `k32_event`: the message's payload.
pub fn event_data() -> Vec<u8> {
    buf::bytes(256, |out, cap| unsafe { sys::k32_event_data(out, cap) }).unwrap_or_default()
}
