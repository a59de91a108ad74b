/*
 * spin: the CPU-heavy pod of bench/boardtime. GET /spin?n=N runs N rounds
 * of FNV-1a (a multiply and an xor each, no memory) and answers the hash,
 * so that the work of a request, and its board time, grows with N.
 */
#include "k32.h"

static char query[64];

/* rounds reads N from a query "n=N"; 0 when there is none. */
static uint32_t rounds(void) {
    int32_t len = k32_req_query(query, sizeof query);
    if (len < 2 || (uint32_t)len > sizeof query || query[0] != 'n' || query[1] != '=') {
        return 0;
    }
    uint32_t n = 0;
    for (int32_t i = 2; i < len && query[i] >= '0' && query[i] <= '9'; i++) {
        n = n * 10 + (uint32_t)(query[i] - '0');
    }
    return n;
}

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    uint32_t n = rounds();
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ i) * 16777619u;
    }
    static const char hex[] = "0123456789abcdef";
    char out[9];
    for (int i = 0; i < 8; i++) {
        out[i] = hex[(h >> (28 - 4 * i)) & 15];
    }
    out[8] = '\n';
    return k32_respond(200, "text/plain", out, sizeof out);
}
