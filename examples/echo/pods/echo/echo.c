/*
 * echo: the pod of examples/echo.yaml. It answers every request with JSON
 * holding the GREETING variable and the method, path and body it received,
 * and logs the channel messages of its event topic. It fits in one 64 KiB
 * page: static buffers, no malloc.
 */
#include "k32.h"

static char out[16384];
static uint32_t out_len;

static void put(const char* s, uint32_t n) {
    for (uint32_t i = 0; i < n && out_len < sizeof out; i++) {
        out[out_len++] = s[i];
    }
}

static void put_str(const char* s) { put(s, k32_strlen(s)); }

/* put_json_string writes s as a JSON string, escaping what JSON requires. */
static void put_json_string(const char* s, uint32_t n) {
    static const char hex[] = "0123456789abcdef";
    put_str("\"");
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            put(esc, 2);
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(esc, 6);
        } else {
            put((const char*)&s[i], 1);
        }
    }
    put_str("\"");
}

/* clamp turns a getter's result into the number of bytes it copied. */
static uint32_t clamp(int32_t n, uint32_t cap) {
    if (n < 0) {
        return 0;
    }
    return (uint32_t)n < cap ? (uint32_t)n : cap;
}

static char greeting[256], method[16], path[1024];
static uint8_t body[8192];

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    uint32_t greeting_len = clamp(k32_env_get(K32_STR("GREETING"), greeting, sizeof greeting), sizeof greeting);
    uint32_t method_len = clamp(k32_req_method(method, sizeof method), sizeof method);
    uint32_t path_len = clamp(k32_req_path(path, sizeof path), sizeof path);
    uint32_t body_len = 0;
    for (;;) {
        int32_t n = k32_req_read(body + body_len, sizeof body - body_len);
        if (n <= 0 || body_len + (uint32_t)n >= sizeof body) {
            body_len += n > 0 ? (uint32_t)n : 0;
            break;
        }
        body_len += (uint32_t)n;
    }

    out_len = 0;
    put_str("{\"greeting\":");
    put_json_string(greeting, greeting_len);
    put_str(",\"method\":");
    put_json_string(method, method_len);
    put_str(",\"path\":");
    put_json_string(path, path_len);
    put_str(",\"body\":");
    put_json_string((const char*)body, body_len);
    put_str("}\n");
    return k32_respond(200, "application/json", out, out_len);
}

static char topic[128];
static uint8_t data[1024];

K32_EXPORT(k32_event) int32_t k32_event(void) {
    uint32_t topic_len = clamp(k32_event_topic(topic, sizeof topic), sizeof topic);
    uint32_t data_len = clamp(k32_event_data(data, sizeof data), sizeof data);
    out_len = 0;
    put_str("event on ");
    put(topic, topic_len);
    put_str(": ");
    put((const char*)data, data_len);
    return k32_log(K32_LOG_INFO, out, out_len);
}
