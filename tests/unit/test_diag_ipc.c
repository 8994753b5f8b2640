/*
 * Unit tests of the diagnostic IPC client (src/io/diag_ipc.c) against a
 * fake diagnostic server (a forked child on an AF_UNIX socket in a temp
 * folder), and of the tee's nettrace framing tracker and repair.
 */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcscope.h"
#include "io/diag_ipc.h"
#include "io/tee.h"

static char tmpdir[64];

static void make_tmpdir(void)
{
    if (tmpdir[0])
        return;
    strcpy(tmpdir, "/tmp/gcs-ipc-XXXXXX");
    if (!mkdtemp(tmpdir))
        abort();
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *de;
    char path[512];
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, de->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(tmpdir);
}

/* ---- a fake server: answers connection i with replies[i] ---- */

typedef struct fake_reply {
    const uint8_t *bytes;
    size_t len;
    const uint8_t *stream; /* sent after the reply, then the connection closes */
    size_t stream_len;
} fake_reply;

static uint8_t ok_session_reply[28];
static const uint64_t fake_session = 0x1122334455667788ull;

static void build_replies(void)
{
    gcs_ipc_write_header(ok_session_reply, 28, 0xFF, 0x00);
    for (int i = 0; i < 8; i++)
        ok_session_reply[20 + i] = (uint8_t)(fake_session >> (8 * i));
}

static void error_reply(uint8_t out[24], uint32_t hresult)
{
    gcs_ipc_write_header(out, 24, 0xFF, 0xFF);
    for (int i = 0; i < 4; i++)
        out[20 + i] = (uint8_t)(hresult >> (8 * i));
}

/* Reads one request (header + payload) into req; returns its size. */
static size_t read_request(int fd, uint8_t *req, size_t cap)
{
    size_t got = 0;
    while (got < GCS_IPC_HEADER_SIZE) {
        ssize_t r = read(fd, req + got, GCS_IPC_HEADER_SIZE - got);
        if (r <= 0)
            return got;
        got += (size_t)r;
    }
    size_t size = (size_t)req[14] | (size_t)req[15] << 8;
    if (size > cap)
        size = cap;
    while (got < size) {
        ssize_t r = read(fd, req + got, size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* Starts the server at path; requests are saved to tmpdir/reqN. */
static pid_t start_fake(const char *path, const fake_reply *replies, int n)
{
    int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    unlink(path);
    if (ls < 0 || bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 4) != 0)
        abort();
    pid_t child = fork();
    if (child != 0) {
        close(ls);
        return child;
    }
    for (int i = 0; i < n; i++) {
        int c = accept(ls, NULL, NULL);
        if (c < 0)
            _exit(3);
        uint8_t req[70000];
        size_t len = read_request(c, req, sizeof req);
        char rp[512];
        snprintf(rp, sizeof rp, "%s/req%d", tmpdir, i);
        int f = open(rp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (f >= 0) {
            if (write(f, req, len) != (ssize_t)len)
                _exit(4);
            close(f);
        }
        if (replies[i].len && write(c, replies[i].bytes, replies[i].len) < 0)
            _exit(5);
        if (replies[i].stream_len &&
            write(c, replies[i].stream, replies[i].stream_len) != (ssize_t)replies[i].stream_len)
            _exit(6);
        close(c);
    }
    _exit(0);
}

static int wait_fake(pid_t child)
{
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

static size_t read_saved_request(int i, uint8_t *buf, size_t cap)
{
    char rp[512];
    snprintf(rp, sizeof rp, "%s/req%d", tmpdir, i);
    int f = open(rp, O_RDONLY);
    if (f < 0)
        return 0;
    ssize_t n = read(f, buf, cap);
    close(f);
    return n > 0 ? (size_t)n : 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Polls gcs_session_stop_result until the answer came (at most ~5 s). */
static gcs_status wait_stop_result(gcs_session *s, gcs_error *err)
{
    gcs_status st = GCS_AGAIN;
    for (int i = 0; i < 500 && st == GCS_AGAIN; i++) {
        st = gcs_session_stop_result(s, err);
        if (st == GCS_AGAIN)
            poll(NULL, 0, 10);
    }
    return st;
}

/* ---- tests ---- */

static void test_encode_collect2(void)
{
    gcs_session_config cfg;
    gcs_session_config_gc(&cfg, false);
    uint8_t msg[1024];
    size_t len;
    gcs_error err;
    CHECK_EQ_INT(gcs_ipc_encode_collect(&cfg, GCS_IPC_EP_COLLECT_TRACING2, msg, sizeof msg, &len,
                                        &err),
                 GCS_OK);
    const char *p1 = "Microsoft-Windows-DotNETRuntime";        /* 31 chars */
    const char *p2 = "Microsoft-Windows-DotNETRuntimePrivate"; /* 38 chars */
    size_t expect = 20 + 4 + 4 + 1 + 4 + (8 + 4 + 4 + (31 + 1) * 2 + 4) +
                    (8 + 4 + 4 + (38 + 1) * 2 + 4);
    CHECK_EQ_U64(len, expect);
    CHECK(memcmp(msg, "DOTNET_IPC_V1\0", 14) == 0);
    CHECK_EQ_U64(msg[14] | msg[15] << 8, expect);
    CHECK_EQ_INT(msg[16], 0x02);
    CHECK_EQ_INT(msg[17], 0x03);
    CHECK_EQ_INT(msg[18] | msg[19], 0);
    CHECK_EQ_U64(le32(msg + 20), 256); /* circular buffer MB */
    CHECK_EQ_U64(le32(msg + 24), 1);   /* NetTrace */
    CHECK_EQ_INT(msg[28], 0);          /* no rundown */
    CHECK_EQ_U64(le32(msg + 29), 2);   /* providers */
    const uint8_t *q = msg + 33;
    CHECK_EQ_U64(le32(q), 1);          /* keywords low: GC */
    CHECK_EQ_U64(le32(q + 4), 0);
    CHECK_EQ_U64(le32(q + 8), 4);      /* Informational */
    CHECK_EQ_U64(le32(q + 12), 32);    /* name units incl. the 0 */
    for (size_t i = 0; i < 31; i++)
        CHECK(q[16 + 2 * i] == (uint8_t)p1[i] && q[17 + 2 * i] == 0);
    CHECK(q[16 + 62] == 0 && q[17 + 62] == 0);
    CHECK_EQ_U64(le32(q + 16 + 64), 0); /* no filter data */
    q += 16 + 64 + 4;
    CHECK_EQ_U64(le32(q + 8), 5);
    CHECK_EQ_U64(le32(q + 12), 39);
    CHECK(q[16] == 'M' && q[16 + 2 * 37] == (uint8_t)p2[37]);

    /* CollectTracing has no rundown byte. */
    size_t len1;
    CHECK_EQ_INT(gcs_ipc_encode_collect(&cfg, GCS_IPC_EP_COLLECT_TRACING, msg, sizeof msg, &len1,
                                        &err),
                 GCS_OK);
    CHECK_EQ_U64(len1, expect - 1);
    CHECK_EQ_INT(msg[17], 0x02);
    CHECK_EQ_U64(le32(msg + 28), 2);

    /* Level 5 with allocation ticks; non-ASCII names become UTF-16 pairs. */
    gcs_session_config_gc(&cfg, true);
    CHECK_EQ_U64(cfg.providers[0].level, 5);
    cfg.providers[0].name = "A\xF0\x9F\x98\x80"; /* A + U+1F600 */
    cfg.provider_count = 1;
    CHECK_EQ_INT(gcs_ipc_encode_collect(&cfg, GCS_IPC_EP_COLLECT_TRACING2, msg, sizeof msg, &len,
                                        &err),
                 GCS_OK);
    q = msg + 33;
    CHECK_EQ_U64(le32(q + 12), 4); /* A, high, low, 0 */
    CHECK_EQ_U64(q[18] | q[19] << 8, 0xD83D);
    CHECK_EQ_U64(q[20] | q[21] << 8, 0xDE00);

    /* Invalid configurations are refused before anything is sent. */
    cfg.providers[0].name = "bad\xC3";
    CHECK_EQ_INT(gcs_ipc_encode_collect(&cfg, GCS_IPC_EP_COLLECT_TRACING2, msg, sizeof msg, &len,
                                        &err),
                 GCS_ERR_ARG);
    cfg.provider_count = 0;
    CHECK_EQ_INT(gcs_ipc_encode_collect(&cfg, GCS_IPC_EP_COLLECT_TRACING2, msg, sizeof msg, &len,
                                        &err),
                 GCS_ERR_ARG);
    gcs_session_config_gc(&cfg, false);
    CHECK_EQ_INT(gcs_ipc_encode_collect(&cfg, GCS_IPC_EP_COLLECT_TRACING2, msg, 60, &len, &err),
                 GCS_ERR_LIMIT);
}

static void test_parse_header(void)
{
    uint8_t h[20];
    gcs_ipc_header hd;
    gcs_error err;
    gcs_ipc_write_header(h, 28, 0xFF, 0x00);
    CHECK_EQ_INT(gcs_ipc_parse_header(h, 20, &hd, &err), GCS_OK);
    CHECK_EQ_U64(hd.size, 28);
    CHECK_EQ_INT(hd.command_set, 0xFF);
    CHECK_EQ_INT(gcs_ipc_parse_header(h, 19, &hd, &err), GCS_ERR_TRUNCATED);
    h[14] = 19;
    h[15] = 0;
    CHECK_EQ_INT(gcs_ipc_parse_header(h, 20, &hd, &err), GCS_ERR_CORRUPT);
    h[3] = 'X';
    CHECK_EQ_INT(gcs_ipc_parse_header(h, 20, &hd, &err), GCS_ERR_NOT_TRACE);
    CHECK(strstr(err.reason, "not a .NET diagnostic server") != NULL);
    uint8_t stop[28];
    gcs_ipc_encode_stop(0x0102030405060708ull, stop);
    CHECK_EQ_INT(stop[14], 28);
    CHECK_EQ_INT(stop[16], 0x02);
    CHECK_EQ_INT(stop[17], 0x01);
    CHECK_EQ_U64(le32(stop + 20), 0x05060708u);
    CHECK_EQ_U64(le32(stop + 24), 0x01020304u);
}

static void test_session_ok_stream_and_stop(void)
{
    make_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/fake-ok", tmpdir);
    static const uint8_t stream[] = "Nettrace-and-more-bytes";
    uint8_t stop_ok[28];
    memcpy(stop_ok, ok_session_reply, 28);
    fake_reply replies[2] = {{ok_session_reply, 28, stream, sizeof stream - 1},
                             {stop_ok, 28, NULL, 0}};
    pid_t child = start_fake(path, replies, 2);
    gcs_session_config cfg;
    gcs_session_config_gc(&cfg, false);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_session *s = gcs_session_start_at(path, &cfg, &err);
    CHECK(s != NULL);
    if (!s) {
        fprintf(stderr, "%s\n", err.reason);
        kill(child, SIGKILL);
        wait_fake(child);
        return;
    }
    CHECK_EQ_U64(gcs_session_id(s), fake_session);
    CHECK_EQ_U64(gcs_session_command(s), 0x0203);
    /* The stream after the reply arrives whole, through the source (read
     * by a tee into /dev/null). */
    size_t total = 0;
    gcs_tee *t = gcs_tee_open(gcs_session_source(s), "/dev/null", &err);
    CHECK(t != NULL);
    for (int spins = 0; t && spins < 200; spins++) {
        size_t got = 0;
        gcs_status st = gcs_tee_pump(t, 64, &got);
        if (st == GCS_OK)
            total += got;
        else if (st == GCS_AGAIN) {
            struct pollfd pfd = {gcs_session_fd(s), POLLIN, 0};
            poll(&pfd, 1, 50);
        } else
            break;
    }
    gcs_tee_result res;
    if (t)
        gcs_tee_close(t, &res, NULL);
    CHECK_EQ_U64(total, sizeof stream - 1);
    CHECK_EQ_INT(gcs_session_stop_result(s, &err), GCS_ERR_ARG); /* not asked yet */
    CHECK_EQ_INT(gcs_session_stop(s, &err), GCS_OK);
    CHECK_EQ_INT(gcs_session_stop(s, &err), GCS_OK); /* again: nothing */
    CHECK_EQ_INT(wait_stop_result(s, &err), GCS_OK);
    gcs_session_free(s);
    CHECK_EQ_INT(wait_fake(child), 0);
    /* What the server received: CollectTracing2, then StopTracing(id). */
    uint8_t req[1024];
    size_t n = read_saved_request(0, req, sizeof req);
    CHECK(n > 33);
    CHECK_EQ_INT(req[16], 0x02);
    CHECK_EQ_INT(req[17], 0x03);
    n = read_saved_request(1, req, sizeof req);
    CHECK_EQ_U64(n, 28);
    CHECK_EQ_INT(req[17], 0x01);
    CHECK_EQ_U64(le32(req + 20), (uint32_t)fake_session);
    CHECK_EQ_U64(le32(req + 24), (uint32_t)(fake_session >> 32));
}

static void test_stop_refused(void)
{
    make_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/fake-stop", tmpdir);
    uint8_t er[24];
    error_reply(er, 0x80004005u);
    fake_reply replies[2] = {{ok_session_reply, 28, NULL, 0}, {er, 24, NULL, 0}};
    pid_t child = start_fake(path, replies, 2);
    gcs_session_config cfg;
    gcs_session_config_gc(&cfg, false);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_session *s = gcs_session_start_at(path, &cfg, &err);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(gcs_session_stop(s, &err), GCS_OK);
        CHECK_EQ_INT(wait_stop_result(s, &err), GCS_ERR_UNSUPPORTED);
        CHECK(strstr(err.reason, "refused to stop") && strstr(err.reason, "0x80004005"));
        gcs_session_free(s);
    }
    CHECK_EQ_INT(wait_fake(child), 0);
}

/* Starts a session against one fake reply; returns the error text. */
static gcs_status start_against(const fake_reply *replies, int n, gcs_error *err,
                                uint16_t *command)
{
    make_tmpdir();
    char path[256];
    snprintf(path, sizeof path, "%s/fake", tmpdir);
    pid_t child = start_fake(path, replies, n);
    gcs_session_config cfg;
    gcs_session_config_gc(&cfg, false);
    cfg.reply_timeout_ms = 3000;
    gcs_error_clear(err);
    gcs_session *s = gcs_session_start_at(path, &cfg, err);
    gcs_status st = s ? GCS_OK : err->status;
    if (s) {
        if (command)
            *command = gcs_session_command(s);
        gcs_session_free(s);
    }
    kill(child, SIGKILL);
    wait_fake(child);
    return st;
}

static void test_session_errors(void)
{
    gcs_error err;
    /* Garbage instead of a reply. */
    static const uint8_t garbage[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
    fake_reply r1[1] = {{garbage, sizeof garbage - 1, NULL, 0}};
    CHECK(start_against(r1, 1, &err, NULL) < 0);
    CHECK(strstr(err.reason, "not a .NET diagnostic server") != NULL);

    /* A short garbage reply, then the connection closes. */
    fake_reply r2[1] = {{garbage, 5, NULL, 0}};
    CHECK_EQ_INT(start_against(r2, 1, &err, NULL), GCS_ERR_TRUNCATED);
    CHECK(strstr(err.reason, "not a .NET diagnostic server") != NULL);

    /* The runtime refuses (bad encoding). */
    uint8_t er[24];
    error_reply(er, GCS_IPC_E_BAD_ENCODING);
    fake_reply r3[1] = {{er, 24, NULL, 0}};
    CHECK_EQ_INT(start_against(r3, 1, &err, NULL), GCS_ERR_UNSUPPORTED);
    CHECK(strstr(err.reason, "refused") && strstr(err.reason, "0x80131384"));

    /* Unknown command: falls back to CollectTracing. */
    uint8_t unk[24];
    error_reply(unk, GCS_IPC_E_UNKNOWN_COMMAND);
    fake_reply r4[2] = {{unk, 24, NULL, 0}, {ok_session_reply, 28, NULL, 0}};
    uint16_t command = 0;
    CHECK_EQ_INT(start_against(r4, 2, &err, &command), GCS_OK);
    CHECK_EQ_U64(command, 0x0202);
    uint8_t req[1024];
    CHECK(read_saved_request(1, req, sizeof req) > 20);
    CHECK_EQ_INT(req[17], 0x02);

    /* A header announcing more than arrives. */
    uint8_t big[20];
    gcs_ipc_write_header(big, 60000, 0xFF, 0x00);
    fake_reply r5[1] = {{big, 20, NULL, 0}};
    CHECK_EQ_INT(start_against(r5, 1, &err, NULL), GCS_ERR_TRUNCATED);
    CHECK(strstr(err.reason, "59980 payload bytes") != NULL);

    /* OK without a session id; error without a code; unexpected reply. */
    uint8_t ok_short[20];
    gcs_ipc_write_header(ok_short, 20, 0xFF, 0x00);
    fake_reply r6[1] = {{ok_short, 20, NULL, 0}};
    CHECK_EQ_INT(start_against(r6, 1, &err, NULL), GCS_ERR_CORRUPT);
    CHECK(strstr(err.reason, "session id") != NULL);
    uint8_t er_short[20];
    gcs_ipc_write_header(er_short, 20, 0xFF, 0xFF);
    fake_reply r7[1] = {{er_short, 20, NULL, 0}};
    CHECK_EQ_INT(start_against(r7, 1, &err, NULL), GCS_ERR_CORRUPT);
    uint8_t odd[28];
    memcpy(odd, ok_session_reply, 28);
    odd[16] = 0x02;
    fake_reply r8[1] = {{odd, 28, NULL, 0}};
    CHECK_EQ_INT(start_against(r8, 1, &err, NULL), GCS_ERR_CORRUPT);

    /* No reply at all: the server closes. */
    fake_reply r9[1] = {{NULL, 0, NULL, 0}};
    CHECK_EQ_INT(start_against(r9, 1, &err, NULL), GCS_ERR_TRUNCATED);
    CHECK(strstr(err.reason, "without a reply") != NULL);

    /* Nobody listening / no socket. */
    char path[300];
    snprintf(path, sizeof path, "%s/none", tmpdir);
    gcs_session_config cfg;
    gcs_session_config_gc(&cfg, false);
    CHECK(gcs_session_start_at(path, &cfg, &err) == NULL);
    CHECK(strstr(err.reason, "no diagnostic socket") != NULL);
}

static void test_find_socket(void)
{
    make_tmpdir();
    char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", tmpdir, 1);
    char path[300];
    gcs_error err;
    /* Our own pid: a stale socket with another key, and the right one. */
    char stat_buf[1024] = "";
    int f = open("/proc/self/stat", O_RDONLY);
    ssize_t n = f >= 0 ? read(f, stat_buf, sizeof stat_buf - 1) : -1;
    if (f >= 0)
        close(f);
    unsigned long long start = 0;
    if (n > 0) {
        stat_buf[n] = 0;
        char *p = strrchr(stat_buf, ')');
        for (int field = 2; p && field < 22; field++)
            p = strchr(p + 1, ' ');
        if (p)
            start = strtoull(p + 1, NULL, 10);
    }
    unsigned pid = (unsigned)getpid();
    CHECK_EQ_INT(gcs_diag_find_socket(pid, path, sizeof path, &err), GCS_ERR_IO);
    CHECK(strstr(err.reason, "has no diagnostic socket") != NULL);
    char name[400];
    snprintf(name, sizeof name, "%s/dotnet-diagnostic-%u-%llu-socket", tmpdir, pid, start + 999);
    close(open(name, O_CREAT | O_WRONLY, 0600));
    snprintf(name, sizeof name, "%s/dotnet-diagnostic-%u-%llu-socket", tmpdir, pid, start);
    close(open(name, O_CREAT | O_WRONLY, 0600));
    snprintf(name, sizeof name, "%s/dotnet-diagnostic-%u-x-socket", tmpdir, pid);
    close(open(name, O_CREAT | O_WRONLY, 0600));
    CHECK_EQ_INT(gcs_diag_find_socket(pid, path, sizeof path, &err), GCS_OK);
    snprintf(name, sizeof name, "%s/dotnet-diagnostic-%u-%llu-socket", tmpdir, pid, start);
    CHECK_EQ_STR(path, name);
    /* The process list holds us once, with our name. */
    gcs_diag_process *list;
    size_t count;
    CHECK_EQ_INT(gcs_diag_list_processes(&list, &count, &err), GCS_OK);
    CHECK_EQ_U64(count, 1);
    if (count == 1) {
        CHECK_EQ_U64(list[0].pid, pid);
        CHECK_EQ_STR(list[0].socket_path, name);
        CHECK(strstr(list[0].command_line, "test_diag_ipc") != NULL);
    }
    free(list);
    /* A pid that does not exist (pid_max is at most 2^22). */
    CHECK_EQ_INT(gcs_diag_find_socket(0x7ffffff0u, path, sizeof path, &err), GCS_ERR_ARG);
    CHECK(strstr(err.reason, "no such process") != NULL);
    if (old) {
        setenv("TMPDIR", old, 1);
        free(old);
    } else {
        unsetenv("TMPDIR");
    }
}

/* ---- framing tracker and repair ---- */

static uint8_t *load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static uint64_t count_events(const uint8_t *data, size_t size, gcs_status *end)
{
    gcs_error err;
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    const gcs_event *ev;
    uint64_t events = 0;
    while ((*end = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        events++;
    gcs_reader_free(r);
    gcs_source_free(src);
    return events;
}

/* Follows a real trace's framing, then cuts it in the middle and checks
 * the tee's repair gives a trace the reader takes whole. */
static void check_tracker_on(const uint8_t *data, size_t size)
{
    /* Whole file, in uneven pieces: ends exactly at its end marker. */
    gcs_frame_tracker t;
    gcs_frame_init(&t);
    size_t pos = 0, step = 1;
    while (pos < size) {
        size_t k = step < size - pos ? step : size - pos;
        gcs_frame_feed(&t, data + pos, k);
        pos += k;
        step = step * 3 % 1021 + 1;
    }
    CHECK_EQ_INT(t.state, GCS_FRAME_DONE);
    CHECK_EQ_U64(t.last_good, size);
    CHECK(t.objects >= 3); /* trace header + blocks */
    uint64_t objects = t.objects;

    /* Cut in the middle: the tee keeps whole objects and adds the end. */
    make_tmpdir();
    char out[300];
    snprintf(out, sizeof out, "%s/cut.nettrace", tmpdir);
    size_t cut = size / 2 + 7;
    gcs_error err;
    gcs_source *mem = gcs_source_from_memory(data, cut, &err);
    gcs_tee *tee = gcs_tee_open(mem, out, &err);
    CHECK(tee != NULL);
    size_t got;
    while (gcs_tee_pump(tee, 4096, &got) == GCS_OK)
        ;
    CHECK_EQ_U64(gcs_tee_bytes(tee), cut);
    gcs_tee_result res;
    CHECK_EQ_INT(gcs_tee_close(tee, &res, &err), GCS_OK);
    gcs_source_free(mem);
    CHECK(res.repaired);
    CHECK(!res.stream_complete);
    CHECK(res.framing_known);
    CHECK(res.objects > 0 && res.objects < objects);
    CHECK(res.bytes_kept <= cut);
    size_t rsize;
    uint8_t *repaired = load(out, &rsize);
    CHECK(repaired != NULL);
    if (repaired) {
        CHECK_EQ_U64(rsize, res.bytes_kept);
        CHECK(memcmp(repaired, data, rsize - 1) == 0);
        CHECK_EQ_INT(repaired[rsize - 1], 0x01);
        gcs_frame_init(&t);
        gcs_frame_feed(&t, repaired, rsize);
        CHECK_EQ_INT(t.state, GCS_FRAME_DONE);
        CHECK_EQ_U64(t.objects, res.objects);
        /* The reader takes it as a whole trace: events, then a clean end;
         * fewer events than the whole file. */
        gcs_status st_cut, st_full;
        uint64_t events = count_events(repaired, rsize, &st_cut);
        uint64_t all = count_events(data, size, &st_full);
        CHECK_EQ_INT(st_cut, GCS_END);
        CHECK_EQ_INT(st_full, GCS_END);
        CHECK(events > 0 && events < all);
        free(repaired);
    }

    /* A complete stream is saved as is. */
    mem = gcs_source_from_memory(data, size, &err);
    tee = gcs_tee_open(mem, out, &err);
    while (gcs_tee_pump(tee, 65536, &got) == GCS_OK)
        ;
    CHECK_EQ_INT(gcs_tee_close(tee, &res, &err), GCS_OK);
    gcs_source_free(mem);
    CHECK(res.stream_complete && !res.repaired);
    CHECK_EQ_U64(res.bytes_kept, size);
    CHECK_EQ_U64(res.objects, objects);

    /* Cut before the first whole object: no usable file, said clearly. */
    mem = gcs_source_from_memory(data, 40, &err);
    tee = gcs_tee_open(mem, out, &err);
    while (gcs_tee_pump(tee, 65536, &got) == GCS_OK)
        ;
    CHECK_EQ_INT(gcs_tee_close(tee, &res, &err), GCS_ERR_TRUNCATED);
    CHECK(strstr(err.reason, "before its first whole block") != NULL);
    gcs_source_free(mem);
}

static void test_frame_tracker_real_trace(void)
{
    size_t size;
    uint8_t *data = load(TEST_DATA("wks-nonconcurrent.nettrace"), &size);
    if (!data)
        SKIP("needs tests/data/wks-nonconcurrent.nettrace");
    check_tracker_on(data, size);
    free(data);
}

static void test_frame_tracker_v4_windows_trace(void)
{
    size_t size;
    uint8_t *data =
        load(SHARED_TRACES "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace", &size);
    if (!data)
        SKIP("needs ../shared/traces/perfview");
    gcs_frame_tracker t;
    gcs_frame_init(&t);
    gcs_frame_feed(&t, data, size);
    CHECK_EQ_INT(t.state, GCS_FRAME_DONE);
    CHECK_EQ_U64(t.last_good, size);
    free(data);
}

static void test_frame_tracker_hostile(void)
{
    /* Not nettrace V5 framing: followed no further, never repaired. */
    gcs_frame_tracker t;
    gcs_frame_init(&t);
    static const uint8_t v6[] = "Nettrace\0\0\0\0xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    gcs_frame_feed(&t, v6, sizeof v6);
    CHECK_EQ_INT(t.state, GCS_FRAME_UNKNOWN);
    /* A block size beyond the limit stops the tracking. */
    uint8_t s[64];
    size_t n = 0;
    memcpy(s, "Nettrace", 8);
    n = 8;
    s[n++] = 20;
    s[n++] = 0;
    s[n++] = 0;
    s[n++] = 0;
    memcpy(s + n, "!FastSerialization.1", 20);
    n += 20;
    static const uint8_t type[] = {5, 5, 1, 2, 0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0,
                                   'E', 'v', 'e', 'n', 't', 'B', 'l', 'o', 'c', 'k', 6,
                                   0xff, 0xff, 0xff, 0x7f};
    memcpy(s + n, type, sizeof type);
    n += sizeof type;
    gcs_frame_init(&t);
    gcs_frame_feed(&t, s, n);
    CHECK_EQ_INT(t.state, GCS_FRAME_UNKNOWN);
    CHECK_EQ_U64(t.last_good, 0);
    /* A type name longer than the limit. */
    gcs_frame_init(&t);
    s[32 + 11] = 200;
    gcs_frame_feed(&t, s, 32 + 15);
    CHECK_EQ_INT(t.state, GCS_FRAME_UNKNOWN);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    build_replies();
    RUN(test_encode_collect2);
    RUN(test_parse_header);
    RUN(test_session_ok_stream_and_stop);
    RUN(test_stop_refused);
    RUN(test_session_errors);
    RUN(test_find_socket);
    RUN(test_frame_tracker_real_trace);
    RUN(test_frame_tracker_v4_windows_trace);
    RUN(test_frame_tracker_hostile);
    remove_tmpdir();
    return check_report("test_diag_ipc");
}
