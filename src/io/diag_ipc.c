/*
 * io/diag_ipc.c - client of the .NET diagnostic server (see diag_ipc.h and
 * docs/live.md): finding a process's socket, starting and stopping
 * EventPipe streaming sessions.
 *
 * Replies from the runtime are input like any trace: every length is
 * checked before it is used, and the bytes go through the cursor.
 */
#include "io/diag_ipc.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/cursor.h"
#include "base/error.h"
#include "io/source.h"

const uint8_t gcs_ipc_magic[GCS_IPC_MAGIC_SIZE] = {'D', 'O', 'T', 'N', 'E', 'T', '_',
                                                   'I', 'P', 'C', '_', 'V', '1', 0};

/* ---- little-endian writer over a bounded buffer ---- */

typedef struct out_buf {
    uint8_t *p;
    size_t len, cap;
    bool overflow;
} out_buf;

static void put_bytes(out_buf *o, const void *data, size_t n)
{
    if (o->overflow || n > o->cap - o->len) {
        o->overflow = true;
        return;
    }
    memcpy(o->p + o->len, data, n);
    o->len += n;
}

static void put_u16(out_buf *o, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put_bytes(o, b, 2);
}

static void put_u32(out_buf *o, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(o, b, 4);
}

static void put_u64(out_buf *o, uint64_t v)
{
    put_u32(o, (uint32_t)v);
    put_u32(o, (uint32_t)(v >> 32));
}

/* Decodes one UTF-8 code point; false on malformed input. */
static bool utf8_next(const unsigned char **s, uint32_t *cp)
{
    const unsigned char *p = *s;
    uint32_t c = p[0];
    int extra;
    if (c < 0x80) {
        extra = 0;
    } else if ((c & 0xE0) == 0xC0) {
        c &= 0x1F;
        extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
        c &= 0x0F;
        extra = 2;
    } else if ((c & 0xF8) == 0xF0) {
        c &= 0x07;
        extra = 3;
    } else {
        return false;
    }
    for (int i = 1; i <= extra; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return false;
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return false;
    *cp = c;
    *s = p + 1 + extra;
    return true;
}

/* The protocol's `string`: uint32 count of UTF-16 units including the
 * terminating 0, then the units; an empty or NULL string is count 0. */
static bool put_string(out_buf *o, const char *s)
{
    if (!s || !*s) {
        put_u32(o, 0);
        return true;
    }
    uint32_t units = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t cp;
        if (!utf8_next(&p, &cp))
            return false;
        units += cp >= 0x10000 ? 2 : 1;
    }
    put_u32(o, units + 1);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t cp;
        (void)utf8_next(&p, &cp);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            put_u16(o, (uint16_t)(0xD800 + (cp >> 10)));
            put_u16(o, (uint16_t)(0xDC00 + (cp & 0x3FF)));
        } else {
            put_u16(o, (uint16_t)cp);
        }
    }
    put_u16(o, 0);
    return true;
}

void gcs_ipc_write_header(uint8_t out[GCS_IPC_HEADER_SIZE], uint16_t size, uint8_t command_set,
                          uint8_t command_id)
{
    memcpy(out, gcs_ipc_magic, GCS_IPC_MAGIC_SIZE);
    out[14] = (uint8_t)size;
    out[15] = (uint8_t)(size >> 8);
    out[16] = command_set;
    out[17] = command_id;
    out[18] = 0;
    out[19] = 0;
}

gcs_status gcs_ipc_parse_header(const uint8_t *p, size_t n, gcs_ipc_header *h, gcs_error *err)
{
    gcs_cursor c = gcs_cur_make(p, n, 0);
    const uint8_t *magic;
    if (!gcs_cur_bytes(&c, GCS_IPC_MAGIC_SIZE, &magic) || !gcs_cur_u16(&c, &h->size) ||
        !gcs_cur_u8(&c, &h->command_set) || !gcs_cur_u8(&c, &h->command_id) ||
        !gcs_cur_u16(&c, &h->reserved))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, gcs_cur_offset(&c),
                        "not a .NET diagnostic server: reply shorter than a %d-byte header",
                        GCS_IPC_HEADER_SIZE);
    if (memcmp(magic, gcs_ipc_magic, GCS_IPC_MAGIC_SIZE) != 0)
        return GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                        "not a .NET diagnostic server: reply does not start with "
                        "\"DOTNET_IPC_V1\"");
    if (h->size < GCS_IPC_HEADER_SIZE)
        return GCS_CORRUPT(err, 14, "diagnostic reply size %u is smaller than its header",
                           (unsigned)h->size);
    return GCS_OK;
}

gcs_status gcs_ipc_encode_collect(const gcs_session_config *cfg, uint8_t command_id,
                                  uint8_t *out, size_t cap, size_t *len, gcs_error *err)
{
    assert(command_id == GCS_IPC_EP_COLLECT_TRACING || command_id == GCS_IPC_EP_COLLECT_TRACING2);
    *len = 0;
    if (cfg->provider_count == 0 || cfg->provider_count > GCS_DIAG_MAX_PROVIDERS)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "a session needs 1..%d providers (got %zu)",
                        GCS_DIAG_MAX_PROVIDERS, cfg->provider_count);
    if (cap < GCS_IPC_HEADER_SIZE)
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0, "no room for a message header");
    out_buf o = {out, GCS_IPC_HEADER_SIZE, cap < GCS_IPC_MAX_MESSAGE ? cap : GCS_IPC_MAX_MESSAGE,
                 false};
    put_u32(&o, cfg->circular_buffer_mb);
    put_u32(&o, 1); /* format: 1 = NetTrace */
    if (command_id == GCS_IPC_EP_COLLECT_TRACING2)
        put_bytes(&o, &(uint8_t){cfg->request_rundown ? 1 : 0}, 1);
    put_u32(&o, (uint32_t)cfg->provider_count);
    for (size_t i = 0; i < cfg->provider_count; i++) {
        const gcs_diag_provider *pv = &cfg->providers[i];
        if (!pv->name || !*pv->name)
            return GCS_FAIL(err, GCS_ERR_ARG, 0, "provider %zu has no name", i + 1);
        put_u64(&o, pv->keywords);
        put_u32(&o, pv->level);
        if (!put_string(&o, pv->name) || !put_string(&o, pv->filter_data))
            return GCS_FAIL(err, GCS_ERR_ARG, 0, "provider %zu: name or filter is not UTF-8",
                            i + 1);
    }
    if (o.overflow)
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0,
                        "session configuration does not fit in one %d-byte message",
                        GCS_IPC_MAX_MESSAGE);
    gcs_ipc_write_header(out, (uint16_t)o.len, GCS_IPC_SET_EVENTPIPE, command_id);
    *len = o.len;
    return GCS_OK;
}

void gcs_ipc_encode_stop(uint64_t session_id, uint8_t out[28])
{
    out_buf o = {out, GCS_IPC_HEADER_SIZE, 28, false};
    put_u64(&o, session_id);
    gcs_ipc_write_header(out, 28, GCS_IPC_SET_EVENTPIPE, GCS_IPC_EP_STOP_TRACING);
}

const char *gcs_ipc_hresult_name(uint32_t hresult)
{
    switch (hresult) {
    case GCS_IPC_E_BAD_ENCODING: return "bad encoding of the request";
    case GCS_IPC_E_UNKNOWN_COMMAND: return "unknown command";
    case GCS_IPC_E_UNKNOWN_MAGIC: return "unknown protocol magic";
    case GCS_IPC_E_UNKNOWN_ERROR: return "unknown error";
    case 0x80070057u: return "invalid argument";
    case 0x8007000Eu: return "out of memory";
    case 0x80004005u: return "unspecified failure";
    }
    return NULL;
}

/* ---- socket I/O with a deadline ---- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads exactly n bytes (fd may be non-blocking). GCS_END if the peer
 * closed before any byte, GCS_ERR_TRUNCATED if inside, GCS_ERR_IO on
 * timeout or error. *got says how many arrived. */
static gcs_status read_exact(int fd, void *buf, size_t n, int64_t deadline, size_t *got)
{
    *got = 0;
    while (*got < n) {
        ssize_t r = recv(fd, (uint8_t *)buf + *got, n - *got, 0);
        if (r > 0) {
            *got += (size_t)r;
            continue;
        }
        if (r == 0)
            return *got == 0 ? GCS_END : GCS_ERR_TRUNCATED;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return GCS_ERR_IO;
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return GCS_ERR_IO;
        struct pollfd pfd = {fd, POLLIN, 0};
        (void)poll(&pfd, 1, (int)(left > 1000 ? 1000 : left));
    }
    return GCS_OK;
}

static gcs_status write_all(int fd, const void *buf, size_t n, gcs_error *err)
{
    size_t done = 0;
    while (done < n) {
        /* MSG_NOSIGNAL: a peer that closed gives EPIPE, not SIGPIPE. */
        ssize_t w = send(fd, (const uint8_t *)buf + done, n - done, MSG_NOSIGNAL);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = {fd, POLLOUT, 0};
            (void)poll(&pfd, 1, 1000);
            continue;
        }
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot send to the diagnostic server: %s",
                        w < 0 ? strerror(errno) : "nothing written");
    }
    return GCS_OK;
}

gcs_status gcs_ipc_read_reply(int fd, int timeout_ms, gcs_ipc_reply *reply, gcs_error *err)
{
    memset(reply, 0, sizeof *reply);
    int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 10000);
    uint8_t hdr[GCS_IPC_HEADER_SIZE];
    size_t got;
    gcs_status st = read_exact(fd, hdr, sizeof hdr, deadline, &got);
    if (st == GCS_END)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, 0,
                        "the diagnostic server closed the connection without a reply");
    if (st == GCS_ERR_TRUNCATED)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, got,
                        "not a .NET diagnostic server: reply of %zu bytes, shorter than a "
                        "%d-byte header",
                        got, GCS_IPC_HEADER_SIZE);
    if (st != GCS_OK)
        return GCS_FAIL(err, GCS_ERR_IO, got, "no reply from the diagnostic server: %s",
                        errno == EAGAIN || errno == EWOULDBLOCK || errno == 0
                            ? "timed out"
                            : strerror(errno));
    st = gcs_ipc_parse_header(hdr, sizeof hdr, &reply->header, err);
    if (st != GCS_OK)
        return st;
    size_t payload = (size_t)reply->header.size - GCS_IPC_HEADER_SIZE;
    reply->payload_size = payload;
    size_t keep = payload < GCS_IPC_REPLY_KEEP ? payload : GCS_IPC_REPLY_KEEP;
    st = read_exact(fd, reply->payload, keep, deadline, &got);
    if (st == GCS_OK) {
        /* Longer than any reply we use: read and drop the rest, so the
         * stream that may follow starts at the right byte. */
        uint8_t sink[256];
        size_t rest = payload - keep;
        while (st == GCS_OK && rest > 0) {
            size_t n = rest < sizeof sink ? rest : sizeof sink;
            st = read_exact(fd, sink, n, deadline, &got);
            rest -= n;
        }
    }
    if (st != GCS_OK)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, GCS_IPC_HEADER_SIZE,
                        "the diagnostic reply announces %zu payload bytes but the connection "
                        "ended or stalled before them",
                        payload);
    return GCS_OK;
}

int gcs_ipc_connect(const char *path, gcs_error *err)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) {
        GCS_FAIL(err, GCS_ERR_ARG, 0, "socket path too long: %s", path);
        return -1;
    }
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        GCS_FAIL(err, GCS_ERR_IO, 0, "cannot create a socket: %s", strerror(errno));
        return -1;
    }
    int rc;
    do
        rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    while (rc < 0 && errno == EINTR);
    if (rc == 0) {
        /* Every wait on the runtime then has a deadline (poll). */
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0)
            return fd;
        GCS_FAIL(err, GCS_ERR_IO, 0, "cannot make the socket non-blocking: %s", strerror(errno));
        close(fd);
        return -1;
    }
    int e = errno;
    close(fd);
    if (e == EACCES || e == EPERM)
        GCS_FAIL(err, GCS_ERR_IO, 0,
                 "permission denied connecting to %s (the process belongs to another user: "
                 "run gcscope as that user or as root)",
                 path);
    else if (e == ECONNREFUSED)
        GCS_FAIL(err, GCS_ERR_IO, 0,
                 "nobody listens on %s (a stale socket: the runtime is gone or not serving)",
                 path);
    else if (e == ENOENT)
        GCS_FAIL(err, GCS_ERR_IO, 0, "no diagnostic socket %s", path);
    else
        GCS_FAIL(err, GCS_ERR_IO, 0, "cannot connect to %s: %s", path, strerror(e));
    return -1;
}

/* ---- finding sockets ---- */

const char *gcs_diag_socket_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* Parses "dotnet-diagnostic-PID-KEY-socket". */
static bool parse_socket_name(const char *name, uint32_t *pid, uint64_t *key)
{
    static const char prefix[] = "dotnet-diagnostic-";
    static const char suffix[] = "-socket";
    size_t len = strlen(name);
    if (len <= sizeof prefix - 1 + sizeof suffix - 1 || strncmp(name, prefix, sizeof prefix - 1))
        return false;
    if (strcmp(name + len - (sizeof suffix - 1), suffix))
        return false;
    const char *p = name + sizeof prefix - 1;
    uint64_t a = 0, b = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (digits >= 10)
            return false;
        a = a * 10 + (uint64_t)(*p - '0');
    }
    if (!digits || *p != '-' || a > UINT32_MAX)
        return false;
    p++;
    digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        if (digits >= 19)
            return false;
        b = b * 10 + (uint64_t)(*p - '0');
    }
    if (!digits || strcmp(p, suffix))
        return false;
    *pid = (uint32_t)a;
    *key = b;
    return true;
}

/* Reads a small /proc file into buf (NUL-terminated); length or -1. */
static ssize_t read_proc(uint32_t pid, const char *what, char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/%s", (unsigned)pid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    return (ssize_t)n;
}

/* The process start time in jiffies (field 22 of /proc/PID/stat). */
static bool process_start_time(uint32_t pid, uint64_t *start)
{
    char buf[1024];
    if (read_proc(pid, "stat", buf, sizeof buf) <= 0)
        return false;
    /* The command name (field 2) may hold spaces and parentheses: fields
     * are counted after its last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    for (int field = 3; field < 22; field++) {
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return false;
    *start = strtoull(p, NULL, 10);
    return true;
}

static bool process_exists(uint32_t pid)
{
    if (pid == 0)
        return false;
    if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
        return true;
    return false;
}

typedef struct socket_pick {
    bool found, key_matches;
    uint64_t key;
    char name[256];
} socket_pick;

/* Chooses among the sockets of one pid: the one whose key is the start
 * time wins, else the highest key. */
static void consider(socket_pick *pick, const char *name, uint64_t key, bool have_start,
                     uint64_t start)
{
    bool matches = have_start && key == start;
    if (pick->found && (pick->key_matches || (!matches && key <= pick->key)))
        return;
    pick->found = true;
    pick->key_matches = matches;
    pick->key = key;
    snprintf(pick->name, sizeof pick->name, "%s", name);
}

gcs_status gcs_diag_find_socket(uint32_t pid, char *path, size_t path_cap, gcs_error *err)
{
    if (path_cap)
        path[0] = 0;
    if (!process_exists(pid))
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "no such process: %u", (unsigned)pid);
    const char *dir = gcs_diag_socket_dir();
    DIR *d = opendir(dir);
    if (!d)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot list %s: %s", dir, strerror(errno));
    uint64_t start = 0;
    bool have_start = process_start_time(pid, &start);
    socket_pick pick = {0};
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        uint32_t p;
        uint64_t key;
        if (parse_socket_name(de->d_name, &p, &key) && p == pid)
            consider(&pick, de->d_name, key, have_start, start);
    }
    closedir(d);
    if (!pick.found)
        return GCS_FAIL(err, GCS_ERR_IO, 0,
                        "process %u has no diagnostic socket in %s (not a .NET process, "
                        "diagnostics disabled with DOTNET_EnableDiagnostics=0, or another "
                        "TMPDIR)",
                        (unsigned)pid, dir);
    int n = snprintf(path, path_cap, "%s/%s", dir, pick.name);
    if (n < 0 || (size_t)n >= path_cap)
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0, "socket path too long: %s/%s", dir, pick.name);
    return GCS_OK;
}

static int cmp_process(const void *a, const void *b)
{
    uint32_t x = ((const gcs_diag_process *)a)->pid, y = ((const gcs_diag_process *)b)->pid;
    return x < y ? -1 : x > y;
}

gcs_status gcs_diag_list_processes(gcs_diag_process **out, size_t *count, gcs_error *err)
{
    *out = NULL;
    *count = 0;
    const char *dir = gcs_diag_socket_dir();
    DIR *d = opendir(dir);
    if (!d)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot list %s: %s", dir, strerror(errno));
    gcs_diag_process *list = NULL;
    size_t n = 0, cap = 0;
    gcs_status st = GCS_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        uint32_t pid;
        uint64_t key;
        if (!parse_socket_name(de->d_name, &pid, &key) || !process_exists(pid))
            continue;
        uint64_t start;
        /* A socket whose key is not this process's start time belongs to
         * an earlier process that had the same pid. */
        if (process_start_time(pid, &start) && start != key)
            continue;
        bool dup = false;
        for (size_t i = 0; i < n; i++)
            dup |= list[i].pid == pid;
        if (dup)
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            gcs_diag_process *nl = realloc(list, ncap * sizeof *nl);
            if (!nl) {
                st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
                break;
            }
            list = nl;
            cap = ncap;
        }
        gcs_diag_process *pr = &list[n++];
        memset(pr, 0, sizeof *pr);
        pr->pid = pid;
        int plen = snprintf(pr->socket_path, sizeof pr->socket_path, "%s/%s", dir, de->d_name);
        if (plen < 0 || (size_t)plen >= sizeof pr->socket_path) {
            n--; /* a path no socket address can hold */
            continue;
        }
        if (read_proc(pid, "comm", pr->name, sizeof pr->name) > 0)
            pr->name[strcspn(pr->name, "\n")] = 0;
        ssize_t len = read_proc(pid, "cmdline", pr->command_line, sizeof pr->command_line);
        for (ssize_t i = 0; i < len; i++)
            if (pr->command_line[i] == 0)
                pr->command_line[i] = ' ';
        while (len > 0 && pr->command_line[len - 1] == ' ')
            pr->command_line[--len] = 0;
    }
    closedir(d);
    if (st != GCS_OK) {
        free(list);
        return st;
    }
    qsort(list, n, sizeof *list, cmp_process);
    *out = list;
    *count = n;
    return GCS_OK;
}

/* ---- sessions ---- */

struct gcs_session {
    int fd;
    uint64_t id;
    uint16_t command;
    bool stopped;          /* StopTracing sent (or nothing left to stop) */
    int stop_fd;           /* connection awaiting StopTracing's reply, or -1 */
    bool stop_done;
    gcs_status stop_status;
    gcs_error stop_error;
    int reply_timeout_ms;
    char socket_path[256];
    gcs_source *source;
};

void gcs_session_config_gc(gcs_session_config *cfg, bool allocation_ticks)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->circular_buffer_mb = 256;
    cfg->request_rundown = false;
    cfg->reply_timeout_ms = 10000;
    cfg->providers[0] = (gcs_diag_provider){"Microsoft-Windows-DotNETRuntime", GCS_KEYWORD_GC,
                                            allocation_ticks ? 5u : 4u, NULL};
    cfg->providers[1] =
        (gcs_diag_provider){"Microsoft-Windows-DotNETRuntimePrivate", GCS_KEYWORD_GC, 5u, NULL};
    cfg->provider_count = 2;
}

/* A cursor over the payload bytes a reply kept. */
static gcs_cursor reply_payload(const gcs_ipc_reply *reply)
{
    return gcs_cur_make(reply->payload,
                        reply->payload_size < GCS_IPC_REPLY_KEEP ? reply->payload_size
                                                                 : GCS_IPC_REPLY_KEEP,
                        GCS_IPC_HEADER_SIZE);
}

gcs_status gcs_ipc_collect_reply(const gcs_ipc_reply *reply, uint64_t *id, uint32_t *refused,
                                 gcs_error *err)
{
    *refused = 0;
    gcs_cursor c = reply_payload(reply);
    if (reply->header.command_set == GCS_IPC_SET_SERVER &&
        reply->header.command_id == GCS_IPC_SERVER_ERROR) {
        uint32_t hr;
        if (!gcs_cur_u32(&c, &hr))
            return GCS_CORRUPT(err, GCS_IPC_HEADER_SIZE,
                               "the runtime refused the command (error reply without a code)");
        *refused = hr;
        const char *what = gcs_ipc_hresult_name(hr);
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, GCS_IPC_HEADER_SIZE,
                        "the runtime refused to start the session: error 0x%08" PRIX32 " (%s)",
                        hr, what ? what : "see the runtime's HRESULT list");
    }
    if (reply->header.command_set != GCS_IPC_SET_SERVER ||
        reply->header.command_id != GCS_IPC_SERVER_OK)
        return GCS_CORRUPT(err, 16, "unexpected diagnostic reply 0x%02X%02X (expected OK 0xFF00)",
                           reply->header.command_set, reply->header.command_id);
    if (!gcs_cur_u64(&c, id))
        return GCS_CORRUPT(err, GCS_IPC_HEADER_SIZE,
                           "the runtime's OK reply has %zu payload bytes, not an 8-byte "
                           "session id",
                           reply->payload_size);
    return GCS_OK;
}

gcs_status gcs_ipc_stop_reply(const gcs_ipc_reply *reply, uint64_t session_id, gcs_error *err)
{
    if (reply->header.command_set == GCS_IPC_SET_SERVER &&
        reply->header.command_id == GCS_IPC_SERVER_ERROR) {
        gcs_cursor c = reply_payload(reply);
        uint32_t hr = 0;
        (void)gcs_cur_u32(&c, &hr);
        const char *what = gcs_ipc_hresult_name(hr);
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, GCS_IPC_HEADER_SIZE,
                        "the runtime refused to stop session %" PRIu64 ": error 0x%08" PRIX32
                        " (%s)",
                        session_id, hr, what ? what : "unknown");
    }
    if (reply->header.command_set != GCS_IPC_SET_SERVER ||
        reply->header.command_id != GCS_IPC_SERVER_OK)
        return GCS_CORRUPT(err, 16, "unexpected reply 0x%02X%02X to StopTracing",
                           reply->header.command_set, reply->header.command_id);
    return GCS_OK;
}

/* Sends one collect command and reads the reply. *refused gets the
 * HRESULT when the runtime answered Error. */
static gcs_status try_collect(const char *path, const gcs_session_config *cfg, uint8_t command_id,
                              int *fd_out, uint64_t *id, uint32_t *refused, gcs_error *err)
{
    *fd_out = -1;
    *refused = 0;
    uint8_t msg[GCS_IPC_MAX_MESSAGE];
    size_t len;
    gcs_status st = gcs_ipc_encode_collect(cfg, command_id, msg, sizeof msg, &len, err);
    if (st != GCS_OK)
        return st;
    int fd = gcs_ipc_connect(path, err);
    if (fd < 0)
        return err ? err->status : GCS_ERR_IO;
    st = write_all(fd, msg, len, err);
    gcs_ipc_reply reply;
    if (st == GCS_OK)
        st = gcs_ipc_read_reply(fd, cfg->reply_timeout_ms, &reply, err);
    if (st != GCS_OK) {
        close(fd);
        return st;
    }
    st = gcs_ipc_collect_reply(&reply, id, refused, err);
    if (st != GCS_OK) {
        close(fd);
        return st;
    }
    *fd_out = fd;
    return GCS_OK;
}

gcs_session *gcs_session_start_at(const char *socket_path, const gcs_session_config *cfg,
                                  gcs_error *err)
{
    gcs_session *s = calloc(1, sizeof *s);
    if (!s) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    s->fd = -1;
    s->stop_fd = -1;
    snprintf(s->socket_path, sizeof s->socket_path, "%s", socket_path);
    s->reply_timeout_ms = cfg->reply_timeout_ms > 0 ? cfg->reply_timeout_ms : 10000;
    uint32_t refused = 0;
    uint8_t command = GCS_IPC_EP_COLLECT_TRACING2;
    gcs_status st = try_collect(socket_path, cfg, command, &s->fd, &s->id, &refused, err);
    if (st != GCS_OK && refused == GCS_IPC_E_UNKNOWN_COMMAND) {
        /* Runtimes before .NET 5 know only CollectTracing (no rundown flag). */
        command = GCS_IPC_EP_COLLECT_TRACING;
        st = try_collect(socket_path, cfg, command, &s->fd, &s->id, &refused, err);
    }
    if (st != GCS_OK) {
        free(s);
        return NULL;
    }
    s->command = (uint16_t)(GCS_IPC_SET_EVENTPIPE << 8 | command);
    int flags = fcntl(s->fd, F_GETFL);
    if (flags < 0 || fcntl(s->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        GCS_FAIL(err, GCS_ERR_IO, 0, "cannot make the stream non-blocking: %s", strerror(errno));
        gcs_session_stop(s, NULL);
        gcs_session_free(s);
        return NULL;
    }
    s->source = gcs_source_from_fd(s->fd, false, err);
    if (!s->source) {
        gcs_session_stop(s, NULL);
        gcs_session_free(s);
        return NULL;
    }
    return s;
}

gcs_session *gcs_session_start(uint32_t pid, const gcs_session_config *cfg, gcs_error *err)
{
    char path[256];
    if (gcs_diag_find_socket(pid, path, sizeof path, err) != GCS_OK)
        return NULL;
    return gcs_session_start_at(path, cfg, err);
}

uint64_t gcs_session_id(const gcs_session *s) { return s->id; }
uint16_t gcs_session_command(const gcs_session *s) { return s->command; }
int gcs_session_fd(const gcs_session *s) { return s->fd; }
gcs_source *gcs_session_source(gcs_session *s) { return s->source; }

/* Reads and checks StopTracing's reply (it is there: poll said so). */
static gcs_status read_stop_reply(gcs_session *s, gcs_error *err)
{
    gcs_ipc_reply reply;
    gcs_status st = gcs_ipc_read_reply(s->stop_fd, s->reply_timeout_ms, &reply, err);
    if (st != GCS_OK)
        return st;
    return gcs_ipc_stop_reply(&reply, s->id, err);
}

gcs_status gcs_session_stop_result(gcs_session *s, gcs_error *err)
{
    if (!s->stopped)
        return GCS_FAIL(err, GCS_ERR_ARG, 0, "the session was not asked to stop");
    if (!s->stop_done) {
        struct pollfd pfd = {s->stop_fd, POLLIN, 0};
        if (poll(&pfd, 1, 0) <= 0)
            return GCS_AGAIN;
        gcs_error_clear(&s->stop_error);
        s->stop_status = read_stop_reply(s, &s->stop_error);
        s->stop_done = true;
        close(s->stop_fd);
        s->stop_fd = -1;
    }
    if (s->stop_status != GCS_OK && err)
        *err = s->stop_error;
    return s->stop_status;
}

gcs_status gcs_session_stop(gcs_session *s, gcs_error *err)
{
    if (s->stopped)
        return GCS_OK;
    s->stopped = true;
    gcs_error local;
    gcs_error_clear(&local);
    int fd = gcs_ipc_connect(s->socket_path, &local);
    if (fd < 0) {
        s->stop_done = true;
        /* The runtime is gone (its socket with it): nothing left to stop. */
        struct stat sb;
        if (stat(s->socket_path, &sb) != 0 || strstr(local.reason, "nobody listens"))
            return GCS_OK;
        s->stop_status = local.status;
        s->stop_error = local;
        if (err)
            *err = local;
        return local.status;
    }
    uint8_t msg[28];
    gcs_ipc_encode_stop(s->id, msg);
    gcs_status st = write_all(fd, msg, sizeof msg, err);
    if (st != GCS_OK) {
        close(fd);
        s->stop_done = true;
        s->stop_status = st;
        if (err)
            s->stop_error = *err;
        return st;
    }
    /* The reply comes once the runtime has flushed the session into the
     * stream, which only happens while the caller keeps reading it: so
     * do not wait here (gcs_session_stop_result collects it). */
    s->stop_fd = fd;
    return GCS_OK;
}

void gcs_session_free(gcs_session *s)
{
    if (!s)
        return;
    gcs_source_free(s->source);
    if (s->fd >= 0)
        close(s->fd);
    if (s->stop_fd >= 0)
        close(s->stop_fd);
    free(s);
}
