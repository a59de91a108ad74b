/*
 * chat: the channels test pod. POST .../pub/<topic> publishes the request
 * body on <topic> with k32_publish and answers "rc=<result>"; GET .../page
 * answers a page that shows an SSE event in a browser; any other request
 * answers every message its k32_event received so far, one
 * "<WHO> <topic> <data>" line each (WHO from the environment), and each one
 * is also logged as "event on <topic>: <data>". POST /exit ends the
 * instance with proc_exit(3), so that the node restarts it. One 64 KiB
 * page, no malloc.
 */
#include "k32.h"

__attribute__((import_module("wasi_snapshot_preview1"), import_name("proc_exit"), noreturn))
void proc_exit(int32_t code);

static char events[16384];
static uint32_t events_len;
static char who[64];
static uint32_t who_len;
static char path[256];
static uint8_t body[4096];
static char line[1200];

/* page connects to the Ingress's /chat/events, publishes a "joined" message
 * once the stream is open (its first presence event) and shows the
 * "joined" event that comes back, then closes the stream. */
static const char page[] =
    "<!doctype html><html><body><p id=\"s\">waiting</p><script>\n"
    "const es = new EventSource('/chat/events');\n"
    "let sent = false;\n"
    "es.addEventListener('presence', () => {\n"
    "  if (sent) return; sent = true;\n"
    "  fetch('/chat/pub/room', {method: 'POST', body: '{\"type\":\"joined\",\"who\":\"browser\"}'});\n"
    "});\n"
    "es.addEventListener('joined', (e) => {\n"
    "  document.getElementById('s').textContent = 'got ' + JSON.parse(e.data).who;\n"
    "  es.close();\n"
    "});\n"
    "</script></body></html>\n";

/* find returns the index of needle in s[0:n], or -1. */
static int32_t find(const char* s, uint32_t n, const char* needle, uint32_t m) {
    for (uint32_t i = 0; i + m <= n; i++) {
        uint32_t j = 0;
        while (j < m && s[i + j] == needle[j]) {
            j++;
        }
        if (j == m) {
            return (int32_t)i;
        }
    }
    return -1;
}

static void append(char* buf, uint32_t* len, uint32_t cap, const char* s, uint32_t n) {
    for (uint32_t i = 0; i < n && *len < cap; i++) {
        buf[(*len)++] = s[i];
    }
}

static uint32_t clamp(int32_t n, uint32_t cap) {
    if (n < 0) {
        return 0;
    }
    return (uint32_t)n < cap ? (uint32_t)n : cap;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    uint32_t path_len = clamp(k32_req_path(path, sizeof path), sizeof path);
    if (path_len == 5 && path[1] == 'e' && path[2] == 'x' && path[3] == 'i' && path[4] == 't') {
        proc_exit(3);
    }
    int32_t at = find(path, path_len, "/pub/", 5);
    if (path_len >= 5 && find(path + path_len - 5, 5, "/page", 5) == 0) {
        return k32_respond(200, "text/html", page, sizeof page - 1);
    }
    if (at >= 0 && (uint32_t)at + 5 < path_len) {
        uint32_t start = (uint32_t)at + 5;
        uint32_t body_len = 0;
        for (;;) {
            int32_t n = k32_req_read(body + body_len, sizeof body - body_len);
            if (n <= 0) {
                break;
            }
            body_len += (uint32_t)n;
            if (body_len == sizeof body) {
                break;
            }
        }
        int32_t rc = k32_publish(path + start, path_len - start, body, body_len);
        char out[32];
        uint32_t out_len = 0;
        append(out, &out_len, sizeof out, "rc=", 3);
        if (rc < 0) {
            append(out, &out_len, sizeof out, "-", 1);
            rc = -rc;
        }
        char digits[12];
        int d = 0;
        do {
            digits[d++] = (char)('0' + rc % 10);
            rc /= 10;
        } while (rc > 0);
        while (d > 0) {
            append(out, &out_len, sizeof out, &digits[--d], 1);
        }
        return k32_respond(200, "text/plain", out, out_len);
    }
    return k32_respond(200, "text/plain", events, events_len);
}

static char topic[128];
static uint8_t data[1024];

K32_EXPORT(k32_event) int32_t k32_event(void) {
    if (who_len == 0) {
        who_len = clamp(k32_env_get(K32_STR("WHO"), who, sizeof who), sizeof who);
    }
    uint32_t topic_len = clamp(k32_event_topic(topic, sizeof topic), sizeof topic);
    uint32_t data_len = clamp(k32_event_data(data, sizeof data), sizeof data);
    append(events, &events_len, sizeof events, who, who_len);
    append(events, &events_len, sizeof events, " ", 1);
    append(events, &events_len, sizeof events, topic, topic_len);
    append(events, &events_len, sizeof events, " ", 1);
    append(events, &events_len, sizeof events, (const char*)data, data_len);
    append(events, &events_len, sizeof events, "\n", 1);
    uint32_t line_len = 0;
    append(line, &line_len, sizeof line, "event on ", 9);
    append(line, &line_len, sizeof line, topic, topic_len);
    append(line, &line_len, sizeof line, ": ", 2);
    append(line, &line_len, sizeof line, (const char*)data, data_len);
    return k32_log(K32_LOG_INFO, line, line_len);
}
