/* libcurl multi driver for texpipe's remote cache (see tp_http.h). One multi handle, one driver
   thread: submitted requests wait in a locked queue, the driver moves them into the multi handle,
   polls (woken by curl_multi_wakeup when something is queued) and answers each finished transfer
   through the callback. Easy handles are reused, so their connections stay alive. */
#include "tp_http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct request {
    struct request *next;
    uint64_t tag;
    char *method;
    char *url;
    struct curl_slist *headers;
    uint8_t *body;
    size_t body_length;
    size_t body_sent;
    uint8_t *answer;
    size_t answer_length;
    size_t answer_capacity;
    int too_large;
    CURL *easy;
} request;

struct tp_http {
    CURLM *multi;
    pthread_mutex_t lock;
    request *queue_head, *queue_tail;
    CURL **idle;  /* easy handles to reuse */
    size_t idle_count, idle_capacity;
    long timeout_ms;
    int stopping;
    int running;
    tp_http_done done;
    void *context;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_status = CURLE_OK;
static void global_init(void) { global_status = curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The largest answer kept: an entry or a blob is never larger than a texture file. */
#define TP_HTTP_MAX_ANSWER ((size_t)1 << 31)

static size_t on_write(char *data, size_t size, size_t count, void *user) {
    request *r = user;
    size_t n = size * count;
    if (r->answer_length + n > TP_HTTP_MAX_ANSWER) {
        r->too_large = 1;
        return 0; /* aborts the transfer */
    }
    if (r->answer_length + n > r->answer_capacity) {
        size_t capacity = r->answer_capacity ? r->answer_capacity : 4096;
        while (capacity < r->answer_length + n) capacity *= 2;
        uint8_t *grown = realloc(r->answer, capacity);
        if (!grown) return 0;
        r->answer = grown;
        r->answer_capacity = capacity;
    }
    memcpy(r->answer + r->answer_length, data, n);
    r->answer_length += n;
    return n;
}

static size_t on_read(char *buffer, size_t size, size_t count, void *user) {
    request *r = user;
    size_t n = size * count;
    size_t left = r->body_length - r->body_sent;
    if (n > left) n = left;
    memcpy(buffer, r->body + r->body_sent, n);
    r->body_sent += n;
    return n;
}

static void free_request(request *r) {
    free(r->method);
    free(r->url);
    curl_slist_free_all(r->headers);
    free(r->body);
    free(r->answer);
    free(r);
}

tp_http *tp_http_new(long timeout_ms, long connections, tp_http_done done, void *context) {
    pthread_once(&global_once, global_init);
    if (global_status != CURLE_OK || !done) return NULL;
    tp_http *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->multi = curl_multi_init();
    if (!h->multi) {
        free(h);
        return NULL;
    }
    curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections > 0 ? connections : 8L);
    curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, connections > 0 ? connections : 8L);
    pthread_mutex_init(&h->lock, NULL);
    h->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
    h->done = done;
    h->context = context;
    return h;
}

void tp_http_set_context(tp_http *h, void *context) {
    if (h) h->context = context;
}

static char *copy(const char *s) {
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

int tp_http_submit(tp_http *h, uint64_t tag, const char *method, const char *url, const char *const *headers,
                   size_t header_count, const uint8_t *body, size_t body_length) {
    if (!h || !method || !url) return -1;
    request *r = calloc(1, sizeof *r);
    if (!r) return -1;
    r->tag = tag;
    r->method = copy(method);
    r->url = copy(url);
    if (!r->method || !r->url) {
        free_request(r);
        return -1;
    }
    for (size_t i = 0; i < header_count; i++) {
        struct curl_slist *grown = curl_slist_append(r->headers, headers[i]);
        if (!grown) {
            free_request(r);
            return -1;
        }
        r->headers = grown;
    }
    if (body && body_length) {
        r->body = malloc(body_length);
        if (!r->body) {
            free_request(r);
            return -1;
        }
        memcpy(r->body, body, body_length);
        r->body_length = body_length;
    }
    pthread_mutex_lock(&h->lock);
    if (h->stopping) {
        pthread_mutex_unlock(&h->lock);
        free_request(r);
        return -1;
    }
    if (h->queue_tail) h->queue_tail->next = r; else h->queue_head = r;
    h->queue_tail = r;
    pthread_mutex_unlock(&h->lock);
    curl_multi_wakeup(h->multi);
    return 0;
}

/* An easy handle for `r`: a reused one (its connection kept by the multi handle) or a new one. */
static int start(tp_http *h, request *r) {
    CURL *e = h->idle_count ? h->idle[--h->idle_count] : curl_easy_init();
    if (!e) return -1;
    curl_easy_reset(e);
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, h->timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, h->timeout_ms);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    if (strcmp(r->method, "PUT") == 0) {
        /* No "Expect: 100-continue": waiting for the server's go-ahead costs a round trip per
           upload, and a cache's blobs are small. */
        struct curl_slist *grown = curl_slist_append(r->headers, "Expect:");
        if (grown) r->headers = grown;
    }
    if (r->headers) curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    if (strcmp(r->method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (strcmp(r->method, "PUT") == 0) {
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(e, CURLOPT_READDATA, r);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)r->body_length);
    } else if (strcmp(r->method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
    }
    r->easy = e;
    if (curl_multi_add_handle(h->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        return -1;
    }
    h->running++;
    return 0;
}

static void answer(tp_http *h, request *r, CURLcode code) {
    long status = 0;
    int failure = TP_HTTP_OK;
    if (code == CURLE_OK) {
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        failure = TP_HTTP_TIMEOUT;
    } else if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
               code == CURLE_COULDNT_RESOLVE_PROXY) {
        failure = TP_HTTP_UNREACHABLE;
    } else {
        failure = TP_HTTP_TRANSPORT;
    }
    h->done(h->context, r->tag, status, r->answer, r->answer_length, failure, (int)code);
}

static void finish(tp_http *h, CURL *e, CURLcode code) {
    request *r = NULL;
    curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
    curl_multi_remove_handle(h->multi, e);
    h->running--;
    if (r) {
        answer(h, r, code);
        free_request(r);
    }
    if (h->idle_count == h->idle_capacity) {
        size_t capacity = h->idle_capacity ? 2 * h->idle_capacity : 16;
        CURL **grown = realloc(h->idle, capacity * sizeof *grown);
        if (!grown) {
            curl_easy_cleanup(e);
            return;
        }
        h->idle = grown;
        h->idle_capacity = capacity;
    }
    h->idle[h->idle_count++] = e;
}

void tp_http_run(tp_http *h) {
    if (!h) return;
    for (;;) {
        pthread_mutex_lock(&h->lock);
        request *queued = h->queue_head;
        h->queue_head = h->queue_tail = NULL;
        int stopping = h->stopping;
        pthread_mutex_unlock(&h->lock);
        while (queued) {
            request *r = queued;
            queued = r->next;
            r->next = NULL;
            if (start(h, r) != 0) {
                h->done(h->context, r->tag, 0, NULL, 0, TP_HTTP_TRANSPORT, (int)CURLE_OUT_OF_MEMORY);
                free_request(r);
            }
        }
        if (stopping && h->running == 0) {
            pthread_mutex_lock(&h->lock);
            int empty = h->queue_head == NULL;
            pthread_mutex_unlock(&h->lock);
            if (empty) return;
            continue;
        }
        int still = 0;
        curl_multi_perform(h->multi, &still);
        CURLMsg *m;
        int left = 0;
        while ((m = curl_multi_info_read(h->multi, &left))) {
            if (m->msg == CURLMSG_DONE) finish(h, m->easy_handle, m->data.result);
        }
        if (h->running > 0 || !stopping) curl_multi_poll(h->multi, NULL, 0, 1000, NULL);
    }
}

void tp_http_stop(tp_http *h) {
    if (!h) return;
    pthread_mutex_lock(&h->lock);
    h->stopping = 1;
    pthread_mutex_unlock(&h->lock);
    curl_multi_wakeup(h->multi);
}

void tp_http_free(tp_http *h) {
    if (!h) return;
    for (size_t i = 0; i < h->idle_count; i++) curl_easy_cleanup(h->idle[i]);
    free(h->idle);
    curl_multi_cleanup(h->multi);
    pthread_mutex_destroy(&h->lock);
    free(h);
}
