#ifndef TP_HTTP_H
#define TP_HTTP_H
/* texpipe's HTTP client for the remote cache: libcurl's multi interface on one driver thread,
   connections kept alive and reused, many requests in flight at once. Requests are submitted from
   any thread; each answer comes back through the `done` callback on the driver thread. libcurl
   reports errors by return codes, so nothing here jumps; every call checks its arguments. */
#include <stddef.h>
#include <stdint.h>

typedef struct tp_http tp_http;

/* What a transfer that got no HTTP answer failed of. */
enum { TP_HTTP_OK = 0, TP_HTTP_TIMEOUT = 1, TP_HTTP_UNREACHABLE = 2, TP_HTTP_TRANSPORT = 3 };

/* `status`: the HTTP status (0 without an answer); `failure`: one of the TP_HTTP_ codes; `code`:
   libcurl's CURLcode. The body is valid during the call only. */
typedef void (*tp_http_done)(void *context, uint64_t tag, long status, const uint8_t *body, size_t length,
                             int failure, int code);

/* NULL when libcurl cannot be set up. `timeout_ms` per request; `connections`: at most this many
   connections to the host at once (requests beyond wait for one to be free). */
tp_http *tp_http_new(long timeout_ms, long connections, tp_http_done done, void *context);

/* Sets the context the callback receives (before the first request is submitted). */
void tp_http_set_context(tp_http *h, void *context);

/* Queues a request: `method` GET, HEAD or PUT; `headers` "Name: value" lines; the body is copied.
   Returns 0, or -1 when out of memory or stopped. Thread-safe. */
int tp_http_submit(tp_http *h, uint64_t tag, const char *method, const char *url, const char *const *headers,
                   size_t header_count, const uint8_t *body, size_t body_length);

/* Runs transfers until tp_http_stop; call on a thread of its own. */
void tp_http_run(tp_http *h);

/* Makes tp_http_run return once every queued and running request has been answered. */
void tp_http_stop(tp_http *h);

/* After tp_http_run has returned. */
void tp_http_free(tp_http *h);

#endif
