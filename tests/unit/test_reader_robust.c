/*
 * Bad input never crashes, hangs or misleads: every trace at hand (the
 * committed fixtures, and ../shared's when present) is cut at every unit
 * (block) boundary and at many points inside units, and has random bytes
 * flipped; each variant is read to the end under ASan+UBSan.
 *
 * A cut trace must end in an error (never GCS_END) whose offset is within
 * the bytes given, after delivering no more events than the whole trace.
 * A source that answers "no data yet" every other read gives exactly the
 * same events as the plain one. gcs_reader_scan, which counts without
 * sorting, ends every variant with the same status, offset and counts as
 * the event-by-event reader; so does a reader told to deliver only the
 * events GC analysis uses (options.want = gcs_gc_wants), which delivers
 * exactly those events of the full read, in the same order.
 */
#include "check.h"
#include "copy_source.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "format/container.h"
#include "gcscope.h"

#define MAX_FILES 32
/* How many cuts inside units and flipped variants per trace: 60 each in
 * `make test`; a longer campaign by hand, e.g.
 *   GCSCOPE_ROBUST_CUTS=400 GCSCOPE_ROBUST_FLIPS=1500 GCSCOPE_ROBUST_SEED=2 \
 *       build/asan/tests/test_reader_robust */
static unsigned cuts_inside_units = 60, flips_per_file = 60;
static uint64_t flip_seed = 0x9E3779B97F4A7C15ull;

static char *files[MAX_FILES];
static size_t n_files;

static void add_dir(const char *dir, const char *suffix1, const char *suffix2)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) && n_files < MAX_FILES) {
        size_t l = strlen(de->d_name);
        bool ok = false;
        const char *sfx[] = {suffix1, suffix2};
        for (int i = 0; i < 2; i++) {
            size_t sl = sfx[i] ? strlen(sfx[i]) : 0;
            if (sfx[i] && l > sl && !strcmp(de->d_name + l - sl, sfx[i]))
                ok = true;
        }
        if (!ok)
            continue;
        size_t pl = strlen(dir) + l + 2;
        files[n_files] = malloc(pl);
        snprintf(files[n_files], pl, "%s/%s", dir, de->d_name);
        n_files++;
    }
    closedir(d);
}

typedef struct result {
    gcs_status status;
    uint64_t events;
    uint64_t offset;
    uint64_t checksum; /* over delivered timestamps and payload sizes */
    uint64_t want_events, want_checksum; /* the same over gcs_gc_wants' events */
    uint64_t want_sum; /* and a sum of per-event hashes: blind to order */
    uint64_t lost, unknown, undecodable, bytes;
    int64_t first_ts, last_ts;
    bool in_order; /* delivered in timestamp order (a corrupt trace may not be) */
} result;

typedef enum read_mode {
    READ_ALL,  /* gcs_reader_next, every event */
    READ_SCAN, /* gcs_reader_scan: no event delivered, no checksum */
    READ_WANT  /* gcs_reader_next with options.want = gcs_gc_wants */
} read_mode;

static result read_all_mode(const uint8_t *data, size_t size, bool with_again, read_mode mode)
{
    const bool scan = mode == READ_SCAN;
    result res = {0};
    gcs_error err;
    gcs_error_clear(&err);
    /* small reads: units arrive in pieces */
    copy_src a = {.data = data, .size = size, .max_chunk = 1000, .at_end = GCS_END,
                  .again_every_other = true};
    gcs_source *src = with_again ? gcs_source_custom(copy_src_read, NULL, &a, &err)
                                 : gcs_source_from_memory(data, size, &err);
    gcs_reader_options opts = {.want = mode == READ_WANT ? gcs_gc_wants : NULL};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    const gcs_event *ev;
    gcs_status st;
    res.in_order = true;
    int64_t last_delivered = INT64_MIN;
    for (;;) {
        if (scan) {
            st = gcs_reader_scan(r, &err);
            if (st == GCS_AGAIN)
                continue;
            break;
        }
        st = gcs_reader_next(r, &ev, &err);
        if (st == GCS_AGAIN)
            continue;
        if (st != GCS_OK)
            break;
        res.events++;
        res.checksum = res.checksum * 31 + (uint64_t)ev->timestamp + ev->payload_size;
        if (ev->timestamp < last_delivered)
            res.in_order = false;
        last_delivered = ev->timestamp;
        if (mode == READ_WANT || gcs_gc_wants(NULL, ev->type)) {
            uint64_t h = ((uint64_t)ev->timestamp + ev->payload_size) * 0x9E3779B97F4A7C15ull;
            res.want_events++;
            res.want_checksum = res.want_checksum * 31 + (uint64_t)ev->timestamp + ev->payload_size;
            res.want_sum += h ^ (h >> 29);
        }
    }
    res.status = st;
    res.offset = err.offset;
    const gcs_reader_stats *stats = gcs_reader_get_stats(r);
    if (mode != READ_ALL)
        res.events = stats->events;
    res.lost = stats->lost_events;
    res.unknown = stats->unknown_events;
    res.undecodable = stats->undecodable_events;
    res.bytes = stats->bytes_read;
    res.first_ts = stats->first_timestamp;
    res.last_ts = stats->last_timestamp;
    gcs_reader_free(r);
    gcs_source_free(src);
    return res;
}

static result read_all(const uint8_t *data, size_t size, bool with_again)
{
    return read_all_mode(data, size, with_again, READ_ALL);
}

static const char *scan_name(read_mode mode)
{
    return mode == READ_SCAN ? "scan" : mode == READ_WANT ? "want" : "read";
}

/* Scanning (or reading only wanted events) ends as reading does, with the
 * same counts. Timestamps: the reader's first and last are the first and
 * last events delivered, the scan's the earliest and latest; they agree
 * when the events came out in order (a corrupt timestamp can break that). */
static void check_mode(const char *path, const uint8_t *data, size_t size, const result *read,
                       bool with_again, read_mode mode)
{
    result sc = read_all_mode(data, size, with_again, mode);
    /* The wanted events are the same; in the same order when both reads
     * came out in order (with corrupt timestamps the order is only as good
     * as the file's, and depends on when the sorter releases). */
    bool same = sc.status == read->status && sc.offset == read->offset &&
                (mode != READ_WANT ||
                 (sc.want_events == read->want_events && sc.want_sum == read->want_sum &&
                  (!(sc.in_order && read->in_order) || sc.want_checksum == read->want_checksum))) &&
                sc.events == read->events && sc.lost == read->lost &&
                sc.unknown == read->unknown && sc.undecodable == read->undecodable &&
                sc.bytes == read->bytes &&
                (!read->in_order || (sc.first_ts == read->first_ts && sc.last_ts == read->last_ts));
    if (!same) {
        check_failed_in_test = 1;
        fprintf(stderr,
                "%s (%zu bytes%s): %s %s at %llu, %llu events, lost %llu, unknown %llu, "
                "undecodable %llu, bytes %llu, ts %lld..%lld; read %s at %llu, %llu events, "
                "lost %llu, unknown %llu, undecodable %llu, bytes %llu, ts %lld..%lld\n",
                path, size, with_again ? ", AGAIN" : "", scan_name(mode), gcs_status_name(sc.status),
                (unsigned long long)sc.offset, (unsigned long long)sc.events,
                (unsigned long long)sc.lost, (unsigned long long)sc.unknown,
                (unsigned long long)sc.undecodable, (unsigned long long)sc.bytes,
                (long long)sc.first_ts, (long long)sc.last_ts, gcs_status_name(read->status),
                (unsigned long long)read->offset, (unsigned long long)read->events,
                (unsigned long long)read->lost, (unsigned long long)read->unknown,
                (unsigned long long)read->undecodable, (unsigned long long)read->bytes,
                (long long)read->first_ts, (long long)read->last_ts);
        if (mode == READ_WANT)
            fprintf(stderr, "  wanted: %llu events (read: %llu), checksum %s\n",
                    (unsigned long long)sc.want_events, (unsigned long long)read->want_events,
                    sc.want_checksum == read->want_checksum ? "equal" : "differs");
    }
}

static void check_scan(const char *path, const uint8_t *data, size_t size, const result *read,
                       bool with_again)
{
    check_mode(path, data, size, read, with_again, READ_SCAN);
    check_mode(path, data, size, read, with_again, READ_WANT);
}

/* End offsets of the container's units, found by stepping it directly. */
static gcs_status nop_trace(void *c, const gcs_trace_info *i, gcs_error *e) { return GCS_OK; }
static gcs_status nop_meta(void *c, const gcs_meta_def *d, gcs_error *e) { return GCS_OK; }
static gcs_status nop_event(void *c, const gcs_raw_event *ev, gcs_error *e) { return GCS_OK; }
static gcs_status nop_sp(void *c, int64_t t, const gcs_seq_entry *s, size_t n, gcs_error *e)
{
    return GCS_OK;
}
static void nop_block(void *c) {}
static void nop_stack(void *c, uint32_t id) {}

static size_t unit_ends(const uint8_t *data, size_t size, uint64_t *ends, size_t cap)
{
    gcs_error err;
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    gcs_stream s;
    gcs_stream_init(&s, src);
    gcs_arena arena;
    gcs_arena_init(&arena, 0);
    gcs_sink sink = {.ctx = NULL, .meta_arena = &arena, .trace = nop_trace,
                     .metadata = nop_meta, .event = nop_event, .sequence_point = nop_sp,
                     .block = nop_block, .stack = nop_stack};
    gcs_container *c = NULL;
    size_t n = 0;
    if (gcs_container_open(&s, &sink, &c, &err) == GCS_OK) {
        ends[n++] = gcs_stream_offset(&s);
        while (n < cap && c->ops->step(c, &err) == GCS_OK)
            ends[n++] = gcs_stream_offset(&s);
        c->ops->destroy(c);
    }
    gcs_arena_reset(&arena);
    gcs_stream_free(&s);
    gcs_source_free(src);
    return n;
}

static void check_cut(const char *path, const uint8_t *data, size_t cut, const result *whole,
                      size_t size)
{
    if (cut >= size)
        return; /* not a cut (a tiny file and a spread of points) */
    result r = read_all(data, cut, false);
    check_scan(path, data, cut, &r, false);
    bool ok = r.status < 0 && r.offset <= cut && r.events <= whole->events;
    if (!ok) {
        check_failed_in_test = 1;
        fprintf(stderr, "%s cut at %zu: status %s offset %llu events %llu (whole %llu)\n", path,
                cut, gcs_status_name(r.status), (unsigned long long)r.offset,
                (unsigned long long)r.events, (unsigned long long)whole->events);
    }
}

static void test_truncation_and_again(void)
{
    if (n_files == 0)
        SKIP("no traces found");
    static uint64_t ends[200000];
    for (size_t f = 0; f < n_files; f++) {
        size_t size = 0;
        uint8_t *data = (uint8_t *)check_read_file(files[f], &size);
        CHECK(data != NULL);
        if (!data)
            continue;
        result whole = read_all(data, size, false);
        CHECK_EQ_INT(whole.status, GCS_END);
        CHECK(whole.events > 0);
        result again = read_all(data, size, true);
        CHECK_EQ_INT(again.status, GCS_END);
        CHECK_EQ_U64(again.events, whole.events);
        CHECK_EQ_U64(again.checksum, whole.checksum);
        check_scan(files[f], data, size, &whole, false);
        check_scan(files[f], data, size, &whole, true);

        size_t n = unit_ends(data, size, ends, sizeof ends / sizeof ends[0]);
        CHECK(n > 2);
        /* At every unit boundary but the very end, and one byte around it. */
        for (size_t i = 0; i < n; i++) {
            if (ends[i] < size)
                check_cut(files[f], data, (size_t)ends[i], &whole, size);
            if (ends[i] + 1 < size)
                check_cut(files[f], data, (size_t)ends[i] + 1, &whole, size);
            if (ends[i] > 0 && ends[i] - 1 < size)
                check_cut(files[f], data, (size_t)ends[i] - 1, &whole, size);
            if (n > 120)
                i += n / 120; /* long traces: a spread of boundaries */
        }
        /* Inside units, spread over the file. */
        for (size_t k = 1; k <= cuts_inside_units; k++)
            check_cut(files[f], data, (size_t)((double)size * k / (cuts_inside_units + 1)) + 3,
                      &whole, size);
        check_cut(files[f], data, 0, &whole, size);
        free(data);
    }
}

static void test_random_flips(void)
{
    if (n_files == 0)
        SKIP("no traces found");
    uint64_t rng = flip_seed;
    for (size_t f = 0; f < n_files; f++) {
        size_t size = 0;
        uint8_t *data = (uint8_t *)check_read_file(files[f], &size);
        if (!data || size == 0) {
            free(data);
            continue;
        }
        uint8_t *copy = malloc(size);
        for (unsigned k = 0; k < flips_per_file; k++) {
            memcpy(copy, data, size);
            unsigned flips = 1 + k % 4;
            for (unsigned j = 0; j < flips; j++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                size_t at = (size_t)(rng % size);
                copy[at] ^= (uint8_t)(1u << (rng >> 60 & 7));
            }
            result r = read_all(copy, size, false);
            check_scan(files[f], copy, size, &r, false);
            /* Anything may happen to the events, but the reader must end
             * with END or an error whose offset lies inside the input. */
            CHECK(r.status == GCS_END || (r.status < 0 && r.offset <= size));
        }
        free(copy);
        free(data);
    }
}

static unsigned env_count(const char *name, unsigned fallback)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 10) : fallback;
}

int main(void)
{
    cuts_inside_units = env_count("GCSCOPE_ROBUST_CUTS", cuts_inside_units);
    flips_per_file = env_count("GCSCOPE_ROBUST_FLIPS", flips_per_file);
    if (getenv("GCSCOPE_ROBUST_SEED"))
        flip_seed += env_count("GCSCOPE_ROBUST_SEED", 0) * 0x2545F4914F6CDD1Dull;
    add_dir("tests/data", ".nettrace", ".netperf");
    add_dir("../shared/traces/perfview", ".nettrace", ".netperf");
    if (n_files == 0)
        printf("skipped: no traces in tests/data or ../shared/traces/perfview\n");
    RUN(test_truncation_and_again);
    RUN(test_random_flips);
    for (size_t i = 0; i < n_files; i++)
        free(files[i]);
    return check_report("test_reader_robust");
}
