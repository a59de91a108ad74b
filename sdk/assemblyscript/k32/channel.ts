import * as sys from "./sys";
import { read, text, utf8 } from "./buf";

/** Publishes data on topic, cluster-wide: 0 or a K32_ERR_* code. Needs capability CHANNEL_IPC. */
export function publish(topic: string, data: string): i32 {
  const t = utf8(topic);
  const d = utf8(data);
  return sys.k32_publish(changetype<usize>(t), <u32>t.byteLength, changetype<usize>(d), <u32>d.byteLength);
}

/** Inside k32_event: the message's topic. */
export function eventTopic(): string {
  const s = text(read(sys.k32_event_topic, 32));
  return s == null ? "" : s;
}

/** Inside k32_event: the message's payload as UTF-8 text. */
export function eventData(): string {
  const s = text(read(sys.k32_event_data, 256));
  return s == null ? "" : s;
}
