// Test-only declarations of the k32_app_abi imports, written by hand so the
// fixtures that need odd imports do not depend on sdk/c. They keep the types
// of sdk/c/k32_app_abi.h, so a fixture may include it too for the K32_ERR_*
// codes.
#include <stdint.h>
#define K32_IMPORT(name) __attribute__((import_module("k32"), import_name(#name)))
#define K32_EXPORT(name) __attribute__((export_name(#name)))

K32_IMPORT(k32_log) int32_t k32_log(int32_t level, const char *msg, uint32_t len);
K32_IMPORT(k32_env_get) int32_t k32_env_get(const char *key, uint32_t key_len, char *out, uint32_t cap);
K32_IMPORT(k32_time_ms) int64_t k32_time_ms(void);
K32_IMPORT(k32_sleep_ms) int32_t k32_sleep_ms(uint32_t ms);
K32_IMPORT(k32_random) int32_t k32_random(void *out, uint32_t len);
K32_IMPORT(k32_req_method) int32_t k32_req_method(char *out, uint32_t cap);
K32_IMPORT(k32_req_path) int32_t k32_req_path(char *out, uint32_t cap);
K32_IMPORT(k32_req_query) int32_t k32_req_query(char *out, uint32_t cap);
K32_IMPORT(k32_req_header) int32_t k32_req_header(const char *name, uint32_t name_len, char *out, uint32_t cap);
K32_IMPORT(k32_req_headers) int32_t k32_req_headers(char *out, uint32_t cap);
K32_IMPORT(k32_req_read) int32_t k32_req_read(uint8_t *out, uint32_t cap);
K32_IMPORT(k32_resp_status) int32_t k32_resp_status(uint32_t status);
K32_IMPORT(k32_resp_header) int32_t k32_resp_header(const char *name, uint32_t name_len, const char *value, uint32_t value_len);
K32_IMPORT(k32_resp_write) int32_t k32_resp_write(const void *data, uint32_t len);
K32_IMPORT(k32_resp_asset) int32_t k32_resp_asset(const char *path, uint32_t path_len, uint32_t status);
K32_IMPORT(k32_http_call) int32_t k32_http_call(const char *method, uint32_t method_len, const char *url, uint32_t url_len,
	const char *headers, uint32_t headers_len, const uint8_t *body, uint32_t body_len,
	uint8_t *resp, uint32_t resp_cap, uint32_t *resp_len, uint32_t timeout_ms);
K32_IMPORT(k32_http_status) int32_t k32_http_status(void);
K32_IMPORT(k32_http_header) int32_t k32_http_header(const char *name, uint32_t name_len, char *out, uint32_t cap);
K32_IMPORT(k32_publish) int32_t k32_publish(const char *topic, uint32_t topic_len, const void *data, uint32_t data_len);
K32_IMPORT(k32_event_topic) int32_t k32_event_topic(char *out, uint32_t cap);
K32_IMPORT(k32_event_data) int32_t k32_event_data(uint8_t *out, uint32_t cap);

#define LIT(s) s, (uint32_t)(sizeof(s) - 1)
