// libwebsockets (Debian libwebsockets-dev 4.1), plus the few helpers MotionLive needs in C: LWS_PRE is a
// macro Swift cannot import, and an HTTP response is a run of calls over `unsigned char **` cursors that
// reads better as one function.
#ifndef CLIBWEBSOCKETS_H
#define CLIBWEBSOCKETS_H

#include <libwebsockets.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/// The bytes `lws_write` needs free before a buffer it writes (`LWS_PRE`).
static inline size_t CLibWebSockets_pre(void) { return LWS_PRE; }

/// Writes a whole HTTP response on a writable connection: the status line, `Content-Type`,
/// `Content-Length`, `Cache-Control: no-store`, `X-Content-Type-Options: nosniff`, an optional extra header
/// (`name` ends in a colon, e.g. "content-security-policy:"), then the body (`LWS_WRITE_HTTP_FINAL`).
/// `body` must have `CLibWebSockets_pre()` writable bytes before it. Wraps `lws_add_http_common_headers`,
/// `lws_add_http_header_by_name`, `lws_finalize_write_http_header` and `lws_write`.
/// @return 0 when written; -1 when the connection must close.
static inline int CLibWebSockets_write_http_response(struct lws *wsi, unsigned int status, const char *content_type,
                                                    const char *extra_name, const char *extra_value,
                                                    unsigned char *body, size_t length) {
    unsigned char headers[LWS_PRE + 2048];
    unsigned char *start = &headers[LWS_PRE], *p = start, *end = &headers[sizeof(headers) - 1];
    if (lws_add_http_common_headers(wsi, status, content_type, (lws_filepos_t)length, &p, end)) return -1;
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:", (const unsigned char *)"no-store", 8,
                                    &p, end))
        return -1;
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
                                    (const unsigned char *)"nosniff", 7, &p, end))
        return -1;
    if (extra_name && extra_value &&
        lws_add_http_header_by_name(wsi, (const unsigned char *)extra_name, (const unsigned char *)extra_value,
                                    (int)strlen(extra_value), &p, end))
        return -1;
    if (lws_finalize_write_http_header(wsi, start, &p, end)) return -1;
    if (length > 0 && lws_write(wsi, body, length, LWS_WRITE_HTTP_FINAL) != (int)length) return -1;
    return 0;
}

/// Writes one WebSocket text message; `text` must have `CLibWebSockets_pre()` writable bytes before it.
/// @return 0 when written (or buffered by lws); -1 when the connection must close.
static inline int CLibWebSockets_write_text(struct lws *wsi, unsigned char *text, size_t length) {
    return lws_write(wsi, text, length, LWS_WRITE_TEXT) < (int)length ? -1 : 0;
}

/// Sets or clears TCP_CORK on a connection's socket (`setsockopt`): while set, the kernel holds partial
/// segments, so a run of small WebSocket messages written one `lws_write` each goes out in full segments;
/// clearing it sends what is held.
static inline void CLibWebSockets_set_cork(struct lws *wsi, int on) {
    int fd = lws_get_socket_fd(wsi);
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
}

#endif
