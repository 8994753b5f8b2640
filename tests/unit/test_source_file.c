/*
 * Media: a memory source is viewed in place, every other medium is read
 * into the stream's buffer, and all of them read a trace identically.
 *
 * Every trace at hand (the committed fixtures, and ../shared's when
 * present) is read through the reader from memory, from a copying custom
 * source, from a descriptor, and from the file by path with the default
 * reads and with reads capped at 4 KiB and at 64 KiB + 1 bytes (reads end
 * inside blocks): the events (timestamps, types, payload bytes), the
 * final status and the reader's counters must be identical. Cut copies
 * give the same error, offset and reason from a file as from memory; an
 * empty file reads like empty memory; a file that grows while it is read
 * is read to its new end; a sysfs file whose size says more than it holds
 * reads like its descriptor.
 */
#include "check.h"
#include "copy_source.h"
#include "reader_digest.h"

#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcscope.h"
#include "io/source.h"

static char tmpdir[64];

/* The old path: a custom source that copies, at most 65521 bytes a read. */
static digest digest_copying(const uint8_t *data, size_t size)
{
    gcs_error err;
    copy_src c = {.data = data, .size = size, .max_chunk = 65521, .at_end = GCS_END};
    return digest_source(gcs_source_custom(copy_src_read, NULL, &c, &err));
}

/* max_read 0: gcs_source_open_file; else the test seam. */
static digest digest_file(const char *path, size_t max_read)
{
    gcs_error err;
    return digest_source(max_read ? gcs_source_open_file_reads(path, max_read, &err)
                                  : gcs_source_open_file(path, &err));
}

static digest digest_fd(const char *path)
{
    gcs_error err;
    int fd = open(path, O_RDONLY);
    return digest_source(fd >= 0 ? gcs_source_from_fd(fd, true, &err) : NULL);
}

/* GC analysis's choice of events: few delivered among many counted, so
 * most delivered payloads wait in the view across units (deferred by the
 * sorter) until a sequence point, and are copied only when it moves. */
static digest digest_gc_only(gcs_source *src)
{
    gcs_reader_options opts = {.want = gcs_gc_wants};
    digest d = read_digest_opts(src, &opts);
    gcs_source_free(src);
    return d;
}

/* Every way of reading path gives what memory gives. */
static void check_all_media(const char *path, const uint8_t *data, size_t size)
{
    gcs_error err;
    digest gc_mem = digest_gc_only(gcs_source_from_memory(data, size, &err));
    digest gc = digest_gc_only(gcs_source_open_file_reads(path, 4096, &err));
    check_same(&gc, &gc_mem, "GC events, 4 KiB reads", path);
    gc = digest_gc_only(gcs_source_open_file(path, &err));
    check_same(&gc, &gc_mem, "GC events, file", path);
    copy_src c = {.data = data, .size = size, .max_chunk = 65521, .at_end = GCS_END};
    gc = digest_gc_only(gcs_source_custom(copy_src_read, NULL, &c, &err));
    check_same(&gc, &gc_mem, "GC events, copying custom source", path);
    digest mem = digest_memory(data, size);
    digest d = digest_copying(data, size);
    check_same(&d, &mem, "copying custom source", path);
    d = digest_fd(path);
    check_same(&d, &mem, "descriptor", path);
    d = digest_file(path, 0);
    check_same(&d, &mem, "file", path);
    d = digest_file(path, 4096);
    check_same(&d, &mem, "4 KiB reads", path);
    d = digest_file(path, 65536 + 1);
    check_same(&d, &mem, "64 KiB + 1 reads", path);
}

static bool write_file(const char *path, const uint8_t *data, size_t size, const char *mode)
{
    FILE *f = fopen(path, mode);
    if (!f)
        return false;
    bool ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static void tmp_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", tmpdir, name);
}

static glob_t traces;

static void find_traces(void)
{
    static const char *const patterns[] = {
        TEST_DATA("*.nettrace"), TEST_DATA("*.netperf"), TEST_DATA("v6/*.nettrace"),
        SHARED_TRACES "*.nettrace", SHARED_TRACES "*.netperf"};
    int flags = 0;
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        if (glob(patterns[i], flags, NULL, &traces) == 0)
            flags = GLOB_APPEND;
    }
}

static bool have_shared(void)
{
    for (size_t i = 0; i < traces.gl_pathc; i++)
        if (!strncmp(traces.gl_pathv[i], SHARED_TRACES, strlen(SHARED_TRACES)))
            return true;
    return false;
}

static void test_every_trace_every_medium(void)
{
    CHECK(traces.gl_pathc >= 7); /* the committed fixtures at least */
    for (size_t i = 0; i < traces.gl_pathc; i++) {
        size_t size = 0;
        uint8_t *data = check_read_file(traces.gl_pathv[i], &size);
        CHECK(data != NULL);
        if (data)
            check_all_media(traces.gl_pathv[i], data, size);
        free(data);
    }
}

static void test_shared_traces_present(void)
{
    if (!have_shared())
        SKIP("no ../shared/traces");
    CHECK(have_shared());
}

/* The stream itself: what each medium shows, and short reads. */
static void test_stream_views(void)
{
    const char *path = TEST_DATA("wks-concurrent.nettrace");
    size_t size = 0;
    uint8_t *data = check_read_file(path, &size);
    if (!data)
        SKIP("fixture missing");
    gcs_error err;

    /* Memory: the caller's bytes, not a copy. */
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_stream s;
    gcs_stream_init(&s, src);
    CHECK_EQ_INT(gcs_stream_need(&s, 100, &err), GCS_OK);
    CHECK(gcs_stream_peek(&s) == data);
    const uint8_t *lo, *hi;
    gcs_stream_window(&s, &lo, &hi);
    CHECK(lo == data && hi == data + size);
    CHECK(s.buf.data == NULL);
    gcs_stream_consume(&s, size - 10);
    CHECK_EQ_INT(gcs_stream_need(&s, 11, &err), GCS_END);
    CHECK_EQ_U64(gcs_stream_avail(&s), 10);
    CHECK_EQ_U64(gcs_stream_offset(&s), size - 10);
    gcs_stream_free(&s);
    gcs_source_free(src);

    /* A regular file: read into the buffer, two chunks at the most held
     * (the buffer itself is larger: one huge page). */
    src = gcs_source_open_file(path, &err);
    gcs_stream_init(&s, src);
    CHECK_EQ_INT(gcs_stream_need(&s, 100, &err), GCS_OK);
    CHECK(s.buf.data != NULL && gcs_stream_peek(&s) == s.buf.data);
    CHECK(s.buf.cap >= GCS_BIG_BYTES);
    gcs_stream_window(&s, &lo, &hi);
    CHECK_EQ_U64(hi - lo, size < 2 * GCS_STREAM_READ_CHUNK ? size : 2 * GCS_STREAM_READ_CHUNK);
    CHECK(memcmp(gcs_stream_peek(&s), data, 100) == 0);
    gcs_stream_free(&s);
    gcs_source_free(src);

    /* A descriptor: the same. */
    int fd = open(path, O_RDONLY);
    src = gcs_source_from_fd(fd, true, &err);
    gcs_stream_init(&s, src);
    CHECK_EQ_INT(gcs_stream_need(&s, 100, &err), GCS_OK);
    CHECK(s.buf.data != NULL && gcs_stream_peek(&s) == s.buf.data);
    gcs_stream_free(&s);
    gcs_source_free(src);

    /* Reads of at most 4093 bytes: every need sees the file's bytes at its
     * offset, across reads, and the view holds little more than asked. */
    static const size_t sizes[] = {1, 4095, 4096, 4097, 10000, 3, 8192, 12};
    src = gcs_source_open_file_reads(path, 4093, &err);
    gcs_stream_init(&s, src);
    size_t k = 0;
    bool bytes_ok = true, small = true;
    while (gcs_stream_offset(&s) + sizes[k % 8] <= size) {
        size_t n = sizes[k++ % 8];
        uint64_t at = gcs_stream_offset(&s);
        if (gcs_stream_need(&s, n, &err) != GCS_OK) {
            CHECK(!"need failed inside the file");
            break;
        }
        gcs_stream_window(&s, &lo, &hi);
        if ((size_t)(hi - lo) > 4093 + 10000)
            small = false;
        if (gcs_stream_peek(&s) < lo || gcs_stream_peek(&s) + n > hi ||
            memcmp(gcs_stream_peek(&s), data + at, n) != 0)
            bytes_ok = false;
        gcs_stream_consume(&s, n / 2 + 1);
    }
    CHECK(bytes_ok);
    CHECK(small);
    CHECK(k > size / 4096);
    /* At the end: what is left, then GCS_END with it still visible. */
    uint64_t left = size - gcs_stream_offset(&s);
    CHECK_EQ_INT(gcs_stream_need(&s, (size_t)left + 1, &err), GCS_END);
    CHECK_EQ_U64(gcs_stream_avail(&s), left);
    CHECK(memcmp(gcs_stream_peek(&s), data + size - left, (size_t)left) == 0);
    gcs_stream_consume(&s, (size_t)left);
    CHECK_EQ_INT(gcs_stream_need(&s, 1, &err), GCS_END);
    CHECK_EQ_U64(gcs_stream_offset(&s), size);
    /* Past the limit: refused whatever the medium. */
    CHECK_EQ_INT(gcs_stream_need(&s, GCS_STREAM_MAX_UNIT + 1, &err), GCS_ERR_LIMIT);
    gcs_stream_free(&s);
    gcs_source_free(src);
    free(data);
}

/* Cut copies: the same error, offset and reason from a file as from memory. */
static void test_truncated_file_like_memory(void)
{
    static const char *const names[] = {TEST_DATA("wks-concurrent.nettrace"),
                                        TEST_DATA("probe-net10.nettrace"),
                                        TEST_DATA("v6/synthetic.nettrace")};
    char path[128];
    tmp_path(path, sizeof path, "cut.nettrace");
    size_t checked = 0;
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        size_t size = 0;
        uint8_t *data = check_read_file(names[f], &size);
        if (!data)
            continue;
        size_t cuts[] = {1, 7, 30, 4095, 4096, 4097, size / 3, size / 2 + 1, size - 1};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            if (cuts[c] >= size || !write_file(path, data, cuts[c], "wb"))
                continue;
            digest mem = digest_memory(data, cuts[c]);
            CHECK(mem.status < 0); /* cut traces are errors */
            digest d = digest_file(path, 0);
            check_same(&d, &mem, "cut, file", names[f]);
            d = digest_file(path, 4096);
            check_same(&d, &mem, "cut, 4 KiB reads", names[f]);
            d = digest_fd(path);
            check_same(&d, &mem, "cut, descriptor", names[f]);
            checked++;
        }
        free(data);
    }
    CHECK(checked >= 20);
    unlink(path);
}

static void test_empty_file(void)
{
    char path[128];
    tmp_path(path, sizeof path, "empty.nettrace");
    CHECK(write_file(path, (const uint8_t *)"", 0, "wb"));
    digest mem = digest_memory(NULL, 0);
    CHECK(mem.status < 0);
    CHECK_EQ_U64(mem.events, 0);
    digest d = digest_file(path, 0);
    check_same(&d, &mem, "empty, file", path);
    d = digest_file(path, 4096);
    check_same(&d, &mem, "empty, 4 KiB reads", path);
    unlink(path);
}

/* A trace still being written: bytes appended before the reader reaches
 * the size the file had when it was opened are read too. */
static void test_growing_file(void)
{
    const char *fixture = TEST_DATA("wks-concurrent.nettrace");
    size_t size = 0;
    uint8_t *data = check_read_file(fixture, &size);
    if (!data)
        SKIP("fixture missing");
    digest whole = digest_memory(data, size);
    char path[128];
    tmp_path(path, sizeof path, "growing.nettrace");
    static const size_t max_reads[] = {0, 4096};
    for (size_t w = 0; w < 2; w++) {
        size_t half = size / 2;
        CHECK(write_file(path, data, half, "wb"));
        gcs_error err;
        gcs_source *src = max_reads[w] ? gcs_source_open_file_reads(path, max_reads[w], &err)
                                       : gcs_source_open_file(path, &err);
        gcs_reader *r = gcs_reader_new(src, NULL, &err);
        const gcs_event *ev;
        CHECK_EQ_INT(gcs_reader_next(r, &ev, &err), GCS_OK);
        uint64_t first_ts = ev ? (uint64_t)ev->timestamp : 0;
        /* The reader has not reached the old end yet. */
        CHECK(gcs_reader_get_stats(r)->bytes_read < half);
        CHECK(write_file(path, data + half, size - half, "ab"));
        uint64_t n = 1;
        gcs_status st;
        while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK)
            n++;
        CHECK_EQ_INT(st, GCS_END);
        CHECK_EQ_U64(n, whole.events);
        CHECK_EQ_U64(gcs_reader_get_stats(r)->bytes_read, size);
        CHECK_EQ_U64(first_ts, (uint64_t)whole.stats.first_timestamp);
        gcs_reader_free(r);
        gcs_source_free(src);
    }
    unlink(path);
    free(data);
}

/* A regular file of a pseudo file system (sysfs says 4096 bytes and holds
 * a few) is read to the end it really has, as a descriptor is. */
static void test_pseudo_file(void)
{
    const char *path = "/sys/devices/system/cpu/online";
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        SKIP("no /sys/devices/system/cpu/online");
    char buf[256];
    ssize_t got = read(fd, buf, sizeof buf);
    close(fd);
    struct stat st;
    if (got <= 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= got)
        SKIP("sysfs file does not look as expected");
    gcs_error err;
    gcs_source *src = gcs_source_open_file(path, &err);
    gcs_stream s;
    gcs_stream_init(&s, src);
    CHECK_EQ_INT(gcs_stream_need(&s, (size_t)got, &err), GCS_OK);
    CHECK(memcmp(gcs_stream_peek(&s), buf, (size_t)got) == 0);
    CHECK_EQ_INT(gcs_stream_need(&s, (size_t)got + 1, &err), GCS_END);
    CHECK_EQ_U64(gcs_stream_avail(&s), (uint64_t)got);
    gcs_stream_free(&s);
    gcs_source_free(src);
    /* Through the reader: the same verdict as the descriptor. */
    digest a = digest_file(path, 0), b = digest_fd(path);
    check_same(&a, &b, "pseudo file", path);
}

int main(void)
{
    strcpy(tmpdir, "/tmp/gcs-file-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    find_traces();
    RUN(test_every_trace_every_medium);
    RUN(test_shared_traces_present);
    RUN(test_stream_views);
    RUN(test_truncated_file_like_memory);
    RUN(test_empty_file);
    RUN(test_growing_file);
    RUN(test_pseudo_file);
    globfree(&traces);
    rmdir(tmpdir);
    return check_report("test_source_file");
}
