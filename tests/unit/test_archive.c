/*
 * Zipped and compressed traces (io/archive.c under the reader).
 *
 * Archives are made here with libarchive's writer from the committed
 * fixtures: gzip, xz, zstd, bzip2 single streams, zips (deflated and
 * stored, with a log file before the trace, several traces, folders) and a
 * tar.gz. Each must read exactly like the plain trace (every event's
 * timestamp, type, thread and payload bytes, the status and every
 * counter), from memory and from a file (mapped). Members are chosen by
 * content or by name; an archive without a trace names its members, and
 * one with a CTF trace says so. Damage: a stored member with a flipped
 * byte fails its CRC (corrupt, naming the member, the events before it
 * delivered); cut archives end truncated or corrupt, never read as
 * complete; bit flips in compressed data end in an error, never a crash.
 * PerfView's net.4.5.2.x86.etl.zip (../shared) reads like its unzipped
 * .etl.
 */
#include "check.h"
#include "copy_source.h"
#include "reader_digest.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcscope.h"
#include "io/source.h"

static char tmpdir[64];

typedef struct member {
    const char *name;
    const uint8_t *data;
    size_t size;
} member;

typedef struct blob {
    uint8_t *data;
    size_t size;
} blob;

/* Options of libarchive's zip writer. */
#define ZIP_DEFLATE NULL
#define ZIP_STORE "zip:compression=store"

/* format: ARCHIVE_FORMAT_ZIP, ARCHIVE_FORMAT_TAR_USTAR, or ARCHIVE_FORMAT_RAW
 * (one member, compressed by filter); zip_options: a ZIP_ option. */
static blob build(int format, int filter, const char *zip_options, const member *m, size_t n)
{
    blob b = {0};
    size_t cap = 1 << 20;
    for (size_t i = 0; i < n; i++)
        cap += m[i].size + m[i].size / 4 + 4096;
    b.data = malloc(cap);
    struct archive *a = archive_write_new();
    if (!b.data || !a)
        goto fail;
    if (archive_write_set_format(a, format) != ARCHIVE_OK)
        goto fail;
    if (filter != ARCHIVE_FILTER_NONE && archive_write_add_filter(a, filter) != ARCHIVE_OK) {
        /* A libarchive built without that compressor: nothing to test with. */
        printf("skipped: libarchive here cannot write filter %d (%s)\n", filter,
               archive_error_string(a));
        archive_write_free(a);
        free(b.data);
        return (blob){0};
    }
    if (zip_options && archive_write_set_options(a, zip_options) != ARCHIVE_OK)
        goto fail;
    if (archive_write_open_memory(a, b.data, cap, &b.size) != ARCHIVE_OK)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, m[i].name);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)m[i].size);
        bool ok = archive_write_header(a, e) == ARCHIVE_OK &&
                  archive_write_data(a, m[i].data, m[i].size) == (la_ssize_t)m[i].size;
        archive_entry_free(e);
        if (!ok)
            goto fail;
    }
    if (archive_write_close(a) != ARCHIVE_OK)
        goto fail;
    archive_write_free(a);
    return b;
fail:
    fprintf(stderr, "cannot build an archive: %s\n", a ? archive_error_string(a) : "no memory");
    if (a)
        archive_write_free(a);
    free(b.data);
    check_failed_in_test = 1;
    return (blob){0};
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return ~c;
}

/*
 * A zip of one stored member whose local header carries its CRC and sizes,
 * as `zip -0` writes it (libarchive's writer always adds a data
 * descriptor, and a streaming reader finds the end of a stored member with
 * one by its CRC: a changed byte would read as a cut zip). Local header,
 * data, central directory entry, end record.
 */
static blob stored_zip(const member *m)
{
    size_t name_len = strlen(m->name);
    size_t local = 30 + name_len, central = 46 + name_len;
    blob b = {malloc(local + m->size + central + 22), local + m->size + central + 22};
    if (!b.data)
        return b;
    memset(b.data, 0, b.size);
    uint32_t crc = crc32_of(m->data, m->size);
    uint8_t *p = b.data;
    put32(p, 0x04034b50);
    put16(p + 4, 10); /* version needed */
    put32(p + 14, crc);
    put32(p + 18, (uint32_t)m->size);
    put32(p + 22, (uint32_t)m->size);
    put16(p + 26, (uint32_t)name_len);
    memcpy(p + 30, m->name, name_len);
    memcpy(p + local, m->data, m->size);
    p += local + m->size;
    put32(p, 0x02014b50);
    put16(p + 4, 20);
    put16(p + 6, 10);
    put32(p + 16, crc);
    put32(p + 20, (uint32_t)m->size);
    put32(p + 24, (uint32_t)m->size);
    put16(p + 28, (uint32_t)name_len);
    memcpy(p + 46, m->name, name_len);
    p += central;
    put32(p, 0x06054b50);
    put16(p + 8, 1);
    put16(p + 10, 1);
    put32(p + 12, (uint32_t)central);
    put32(p + 16, (uint32_t)(local + m->size));
    return b;
}

static digest digest_mem(const blob *b, const gcs_reader_options *opts)
{
    gcs_error err;
    gcs_source *src = gcs_source_from_memory(b->data, b->size, &err);
    digest d = read_digest_opts(src, opts);
    gcs_source_free(src);
    return d;
}

/* The archive kind and member the reader says it read (after reading). */
static void check_archive(const uint8_t *data, size_t size, const gcs_reader_options *opts,
                          const char *kind, const char *member_name)
{
    gcs_error err;
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_reader *r = gcs_reader_new(src, opts, &err);
    const gcs_event *ev;
    CHECK_EQ_INT(gcs_reader_next(r, &ev, &err), GCS_OK);
    const char *k = NULL, *m = NULL;
    CHECK(gcs_reader_archive(r, &k, &m));
    CHECK_EQ_STR(k, kind);
    CHECK_EQ_STR(m, member_name);
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* A fixture's bytes, and how it reads plain (*want). NULL (the test
 * failed) if it cannot be read. */
static uint8_t *load(const char *path, size_t *size, digest *want)
{
    uint8_t *data = check_read_file(path, size);
    CHECK(data != NULL);
    if (data)
        *want = digest_memory(data, *size);
    return data;
}

static const char log_text[] = "PerfView log: collection started\nstopped\n";

static const char *const fixtures[] = {TEST_DATA("probe-net10.nettrace"),
                                       TEST_DATA("gen0size-small.nettrace"),
                                       TEST_DATA("v6/synthetic.nettrace")};

/* Every compressed form of each fixture reads exactly like the plain file. */
static void test_compressed_forms_read_like_plain(void)
{
    static const struct {
        const char *what;
        int format, filter;
        const char *zip_options;
        bool with_log;
        const char *kind;
    } forms[] = {
        {"gzip", ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_GZIP, NULL, false, "gzip"},
        {"xz", ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_XZ, NULL, false, "xz"},
        {"zstd", ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_ZSTD, NULL, false, "zstd"},
        {"bzip2", ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_BZIP2, NULL, false, "bzip2"},
        {"zip deflated, log first", ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, true, "zip"},
        {"zip stored", ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_STORE, false, "zip"},
        {"tar.gz, log first", ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_GZIP, NULL, true, "gzip"},
    };
    for (size_t f = 0; f < sizeof fixtures / sizeof fixtures[0]; f++) {
        size_t size;
        uint8_t *plain = check_read_file(fixtures[f], &size);
        CHECK(plain != NULL);
        if (!plain)
            continue;
        digest want = digest_memory(plain, size);
        CHECK_EQ_INT(want.status, GCS_END);
        CHECK(want.events >= 8);
        for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
            member m[2] = {{"LogFile.txt", (const uint8_t *)log_text, sizeof log_text - 1},
                           {"trace/the.nettrace", plain, size}};
            bool raw = forms[i].format == ARCHIVE_FORMAT_RAW;
            blob b = forms[i].with_log ? build(forms[i].format, forms[i].filter, forms[i].zip_options, m, 2)
                                       : build(forms[i].format, forms[i].filter, forms[i].zip_options, m + 1, 1);
            if (!b.data)
                continue;
            CHECK(b.size > 0 && b.size != size);
            digest got = digest_mem(&b, NULL);
            check_same(&got, &want, forms[i].what, fixtures[f]);
            check_archive(b.data, b.size, NULL, forms[i].kind, raw ? "" : "trace/the.nettrace");
            free(b.data);
        }
        free(plain);
    }
}

/* From a file or a descriptor the archive's bytes come through the
 * stream's read buffer, lent to libarchive without a copy, whatever size
 * each read() returns. */
static void test_archive_from_file_and_fd(void)
{
    size_t size;
    digest want;
    uint8_t *plain = load(TEST_DATA("wks-concurrent.nettrace"), &size, &want);
    if (!plain)
        return;
    member m = {"wks-concurrent.nettrace", plain, size};
    blob zip = build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, &m, 1);
    char path[128];
    snprintf(path, sizeof path, "%s/w.zip", tmpdir);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(zip.data, 1, zip.size, f) == zip.size);
    if (f)
        fclose(f);
    gcs_error err;
    /* Reads of a page at most: libarchive is lent many small views. */
    digest got = digest_source(gcs_source_open_file_reads(path, 4096, &err));
    check_same(&got, &want, "zip, read a page at a time", path);
    got = digest_source(gcs_source_open_file(path, &err));
    check_same(&got, &want, "zip, file", path);
    int fd = open(path, O_RDONLY);
    got = digest_source(gcs_source_from_fd(fd, true, &err));
    check_same(&got, &want, "zip, read()", path);
    unlink(path);
    free(zip.data);
    free(plain);
}

/* The first member that is a trace is read; archive_member picks another
 * (by path or file name); an absent one is named with the members. */
static void test_member_choice(void)
{
    size_t na, nb;
    uint8_t *a = check_read_file(TEST_DATA("probe-net10.nettrace"), &na);
    uint8_t *b = check_read_file(TEST_DATA("gen0size-small.nettrace"), &nb);
    CHECK(a && b);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    digest want_a = digest_memory(a, na), want_b = digest_memory(b, nb);
    member m[3] = {{"LogFile.txt", (const uint8_t *)log_text, sizeof log_text - 1},
                   {"a.nettrace", a, na},
                   {"more/b.nettrace", b, nb}};
    blob zip = build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, m, 3);
    digest got = digest_mem(&zip, NULL);
    check_same(&got, &want_a, "first trace member", "zip");
    check_archive(zip.data, zip.size, NULL, "zip", "a.nettrace");

    gcs_reader_options opts = {.archive_member = "b.nettrace"};
    got = digest_mem(&zip, &opts);
    check_same(&got, &want_b, "member by file name", "zip");
    check_archive(zip.data, zip.size, &opts, "zip", "more/b.nettrace");
    opts.archive_member = "more/b.nettrace";
    got = digest_mem(&zip, &opts);
    check_same(&got, &want_b, "member by path", "zip");

    /* Asked for by name, a member that is not a trace is read as one,
     * and the container says what it is not. */
    opts.archive_member = "LogFile.txt";
    got = digest_mem(&zip, &opts);
    CHECK_EQ_INT(got.status, GCS_ERR_NOT_TRACE);
    CHECK(strstr(got.reason, "(in zip member LogFile.txt)") != NULL);

    opts.archive_member = "c.nettrace";
    got = digest_mem(&zip, &opts);
    CHECK_EQ_INT(got.status, GCS_ERR_ARG);
    CHECK_EQ_U64(got.events, 0);
    CHECK_EQ_STR(got.reason, "no member c.nettrace in the zip (members: LogFile.txt, "
                             "a.nettrace, more/b.nettrace)");
    free(zip.data);
    free(a);
    free(b);
}

/* No trace inside: the members are named; a CTF trace is called one. */
static void test_no_trace_member(void)
{
    member m[2] = {{"LogFile.txt", (const uint8_t *)log_text, sizeof log_text - 1},
                   {"notes.md", (const uint8_t *)"# notes\n", 8}};
    blob zip = build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, m, 2);
    digest got = digest_mem(&zip, NULL);
    CHECK_EQ_INT(got.status, GCS_ERR_NOT_TRACE);
    CHECK_EQ_STR(got.reason, "not a trace: no member of the zip is a nettrace, netperf or ETL "
                             "trace (members: LogFile.txt, notes.md)");
    free(zip.data);

    static const char tsdl[] = "/* CTF 1.8 */\ntrace { major = 1; minor = 8; };\n";
    member ctf[3] = {{"t.trace/perfcollect.log", (const uint8_t *)log_text, sizeof log_text - 1},
                     {"t.trace/lttngTrace/ust/metadata", (const uint8_t *)tsdl, sizeof tsdl - 1},
                     {"t.trace/lttngTrace/ust/channel0_0", (const uint8_t *)"\xc1\x1f\xfc\xc1....", 8}};
    zip = build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, ctf, 3);
    got = digest_mem(&zip, NULL);
    CHECK_EQ_INT(got.status, GCS_ERR_NOT_TRACE);
    CHECK(!strncmp(got.reason, "LTTng CTF trace: ", 17));
    CHECK(strstr(got.reason, "t.trace/lttngTrace/ust/metadata") != NULL);
    free(zip.data);

    /* A member name with control bytes is shown without them (one line). */
    member evil = {"a\nb\033[2J.txt", (const uint8_t *)"x", 1};
    zip = build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, &evil, 1);
    got = digest_mem(&zip, NULL);
    CHECK(strstr(got.reason, "(members: a?b?[2J.txt)") != NULL);
    free(zip.data);

    /* An empty zip (end record only) and a gzip of nothing. */
    zip = build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, NULL, 0);
    got = digest_mem(&zip, NULL);
    CHECK_EQ_INT(got.status, GCS_ERR_NOT_TRACE);
    CHECK(strstr(got.reason, "(members: none)") != NULL);
    free(zip.data);
    member empty = {"empty", (const uint8_t *)"", 0};
    blob gz = build(ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_GZIP, NULL, &empty, 1);
    got = digest_mem(&gz, NULL);
    CHECK_EQ_INT(got.status, GCS_ERR_TRUNCATED);
    CHECK_EQ_STR(got.reason, "gzip: Unrecognized archive format");
    free(gz.data);
}

/* A member with one byte changed: every event is delivered (the
 * byte is inside a payload), then the CRC mismatch, naming the member, at
 * the member's end. */
static void test_bad_crc(void)
{
    size_t size;
    digest want;
    uint8_t *plain = load(TEST_DATA("probe-net10.nettrace"), &size, &want);
    if (!plain)
        return;
    member m = {"probe.nettrace", plain, size};
    blob zip = stored_zip(&m);
    /* The last 16 bytes of the trace are its end tags; flip a byte of the
     * last block's payloads, found from the end of the member's data. */
    const uint8_t *tail = plain + size - 4096;
    uint8_t *in_zip = NULL;
    for (size_t i = 0; zip.data && i + 64 <= zip.size && !in_zip; i++)
        if (!memcmp(zip.data + i, tail, 64))
            in_zip = zip.data + i;
    CHECK(in_zip != NULL);
    if (in_zip) {
        in_zip[10] ^= 0x01;
        digest got = digest_mem(&zip, NULL);
        CHECK_EQ_INT(got.status, GCS_ERR_CORRUPT);
        CHECK(strstr(got.reason, "zip member probe.nettrace: ZIP bad CRC") != NULL);
        CHECK_EQ_U64(got.err_offset, size);
        CHECK(got.events > want.events * 9 / 10);
    }
    free(zip.data);
    free(plain);
}

/* Cut archives: never read as complete (unless only the zip's central
 * directory is lost: the member is whole), a truncation names the member;
 * the events before the cut are delivered. Flipped bits: an error or the
 * same events, never a crash. */
static void test_cut_and_flipped(void)
{
    size_t size;
    digest want;
    uint8_t *plain = load(TEST_DATA("probe-net10.nettrace"), &size, &want);
    if (!plain)
        return;
    member m = {"probe.nettrace", plain, size};
    blob forms[2] = {build(ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, ZIP_DEFLATE, &m, 1),
                     build(ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_GZIP, NULL, &m, 1)};
    const char *names[2] = {"zip", "gzip"};
    for (int k = 0; k < 2; k++) {
        blob *b = &forms[k];
        if (!b->data)
            continue;
        int truncated = 0, complete = 0, some_events = 0;
        for (size_t cut = 1; cut < b->size; cut += b->size / 97 + 1) {
            blob c = {b->data, cut};
            digest got = digest_mem(&c, NULL);
            if (got.status == GCS_END) {
                complete++;
                check_same(&got, &want, "cut after the member", names[k]);
                continue;
            }
            CHECK(got.status == GCS_ERR_TRUNCATED || got.status == GCS_ERR_CORRUPT ||
                  got.status == GCS_ERR_NOT_TRACE);
            CHECK(got.events < want.events);
            if (got.status == GCS_ERR_TRUNCATED && cut > 1024) {
                truncated++;
                CHECK(strstr(got.reason, k == 0 ? "zip member probe.nettrace" : "gzip") != NULL);
            }
            some_events += got.events > 0;
        }
        CHECK(truncated > 50);
        CHECK(some_events > 50);
        CHECK(complete <= 2); /* zip: cuts inside the central directory only */
        uint64_t seed = 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < 200; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % b->size;
            b->data[at] ^= (uint8_t)(1u << (seed >> 29 & 7));
            digest got = digest_mem(b, NULL);
            CHECK(got.status < 0 || got.status == GCS_END);
            b->data[at] ^= (uint8_t)(1u << (seed >> 29 & 7));
        }
        free(b->data);
    }
    free(plain);
}

/* A medium that says "no data yet" (a live socket): an archive cannot be
 * resumed, so that is a clear error, not a hang. */
static void test_live_medium_refused(void)
{
    size_t size;
    uint8_t *plain = check_read_file(TEST_DATA("probe-net10.nettrace"), &size);
    CHECK(plain != NULL);
    if (!plain)
        return;
    member m = {"probe.nettrace", plain, size};
    blob gz = build(ARCHIVE_FORMAT_RAW, ARCHIVE_FILTER_GZIP, NULL, &m, 1);
    /* The first 64 bytes, then "no data yet" for ever. */
    copy_src c = {.data = gz.data, .size = 64, .at_end = GCS_AGAIN};
    gcs_error err;
    gcs_source *src = gcs_source_custom(copy_src_read, NULL, &c, &err);
    digest got = digest_source(src);
    CHECK_EQ_INT(got.status, GCS_ERR_UNSUPPORTED);
    CHECK(strstr(got.reason, "an archive is read from a complete input") != NULL);
    free(gz.data);
    free(plain);
}

/* PerfView's .etl.zip read directly is its unzipped .etl (unzip -p). */
static void test_perfview_etl_zip(void)
{
    const char *zip = SHARED_TRACES "net.4.5.2.x86.etl.zip";
    if (!check_file_exists(zip))
        SKIP("../shared absent");
    if (system("unzip -v > /dev/null 2>&1") != 0)
        SKIP("unzip absent");
    char etl[128], cmd[512];
    snprintf(etl, sizeof etl, "%s/net.etl", tmpdir);
    snprintf(cmd, sizeof cmd, "unzip -p '%s' net.4.5.2.x86.etl > '%s'", zip, etl);
    CHECK_EQ_INT(system(cmd), 0);
    gcs_error err;
    digest want = digest_source(gcs_source_open_file(etl, &err));
    digest got = digest_source(gcs_source_open_file(zip, &err));
    CHECK_EQ_INT(want.status, GCS_END);
    CHECK_EQ_U64(want.events, 168298);
    CHECK_EQ_U64(want.stats.bytes_read, 4388184);
    check_same(&got, &want, "etl.zip", zip);
    size_t size;
    uint8_t *data = check_read_file(zip, &size);
    if (data)
        check_archive(data, size, NULL, "zip", "net.4.5.2.x86.etl");
    free(data);
    unlink(etl);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gcs-archive-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(test_compressed_forms_read_like_plain);
    RUN(test_archive_from_file_and_fd);
    RUN(test_member_choice);
    RUN(test_no_trace_member);
    RUN(test_bad_crc);
    RUN(test_cut_and_flipped);
    RUN(test_live_medium_refused);
    RUN(test_perfview_etl_zip);
    rmdir(tmpdir);
    return check_report("test_archive");
}
