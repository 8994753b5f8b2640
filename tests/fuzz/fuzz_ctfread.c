/*
 * Harness: our own reader of LTTng CTF traces end to end (format/ctf:
 * ctf_tsdl.c parses the metadata, ctf_decode.c reads fields, ctf_native.c
 * walks stream files packet by packet), on hostile bytes.
 *
 * The input is split at its first 0 byte (TSDL text never holds one):
 *
 *   metadata text  0x00  stream file bytes
 *
 * (no 0 byte: all of it is metadata, the stream file is empty).
 *
 * 1. ctf_meta_parse on the metadata text alone (an exact-size copy, so a
 *    read past it is seen): OK, or an error status with a reason and an
 *    offset inside the text; on OK every layout is one the decoder can
 *    walk (registers below n_regs, n_regs <= CTF_TSDL_MAX_REGS, integers
 *    of 1..64 bits, alignments powers of two, variant options inside the
 *    variant, depth within the bound, array and sequence elements of one
 *    bit at least) and each stream class's by_id points
 *    into meta.events at a class of that id; ctf_meta_free leaves nothing
 *    (LeakSanitizer).
 * 2. The whole reader: the text (behind a comment "CTF 1.8" when it does
 *    not start with one, as LTTng's plain-text metadata does) is written
 *    as "metadata" and the stream bytes as "channel0_0" into a private
 *    folder made once per process ($TMPDIR/gcscope-fuzz-ctfread-<pid>-XXXXXX,
 *    removed at exit; a crash leaves it), which the public API opens
 *    (gcs_source_open_file on the folder, gcs_reader_next to the end).
 *    GCSCOPE_CTF_READER=native keeps babeltrace2 out (not ours, not
 *    instrumented, known to leak on errors): metadata our parser calls
 *    GCS_ERR_UNSUPPORTED is then the read's error. The read must end (libFuzzer's
 *    -timeout) with GCS_END or an error whose status, reason and offset
 *    are set (a metadata error: the status the harness predicts by
 *    checking and parsing the file itself, no event; a stream error: an
 *    offset inside the stream file), never GCS_AGAIN; every event has a
 *    type and its payload; the reader counts the events it delivered; and
 *    there are at most 8 events per stream byte (each event takes one bit
 *    at least: a reader looping without moving would break it).
 * 3. A second reader scans the folder (gcs_reader_scan, the counting path
 *    of `info`: the container counts the events whose payloads it proves
 *    fit without rebuilding them) and must count as the delivery did:
 *    events, undecodable, unknown and lost events, first and last time
 *    (when the delivery came out in time order: else it reports its first
 *    and last, the scan the extremes), and the same status, offset and
 *    reason.
 */
#include "fuzz_common.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "format/ctf/ctf.h"
#include "format/ctf/ctf_tsdl.h"
#include "gcscope.h"

static char folder[4096];

static void remove_folder(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/metadata", folder);
    unlink(path);
    snprintf(path, sizeof path, "%s/channel0_0", folder);
    unlink(path);
    rmdir(folder);
}

static void make_folder(void)
{
    if (folder[0])
        return;
    const char *tmp = getenv("TMPDIR");
    snprintf(folder, sizeof folder, "%s/gcscope-fuzz-ctfread-%ld-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
    FUZZ_REQUIRE(mkdtemp(folder) != NULL);
    atexit(remove_folder);
    setenv("GCSCOPE_CTF_READER", "native", 1); /* ours only: no babeltrace2 fallback */
}

static void write_file(const char *name, const void *data, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_REQUIRE(fd >= 0);
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size);
        FUZZ_REQUIRE(w > 0);
        p += w;
        size -= (size_t)w;
    }
    close(fd);
}

/* Types are shared (typealias), so a walk of every path could take
 * 2^depth steps: the checks stop after this many types. */
#define CHECK_BUDGET 100000u

static bool power_of_two(uint32_t v) { return v && !(v & (v - 1)); }

static bool valid_reg(const ctf_meta *m, int32_t reg) { return reg >= -1 && reg < (int32_t)m->n_regs; }

/* What the decoder relies on in every layout it walks. */
static void check_type(const ctf_meta *m, const ctf_type *t, uint32_t depth, unsigned *budget)
{
    if (!t || *budget == 0)
        return;
    (*budget)--;
    FUZZ_REQUIRE(depth <= 2 * CTF_TSDL_MAX_NESTING + 1);
    FUZZ_REQUIRE(t->depth >= 1 && t->depth <= 2 * CTF_TSDL_MAX_NESTING);
    FUZZ_REQUIRE(power_of_two(t->align));
    switch (t->kind) {
    case CTF_INT:
        FUZZ_REQUIRE(t->size >= 1 && t->size <= 64 && t->min_bits == t->size);
        FUZZ_REQUIRE(t->clock < (int32_t)m->n_clocks && (t->clock >= 0 || t->clock == -1));
        FUZZ_REQUIRE(!t->n_ranges || t->ranges);
        break;
    case CTF_FLOAT:
        FUZZ_REQUIRE(t->size == 32 || t->size == 64);
        break;
    case CTF_STRING:
        break;
    case CTF_STRUCT:
    case CTF_VARIANT:
        FUZZ_REQUIRE(!t->n_members || t->members);
        if (t->kind == CTF_VARIANT) {
            FUZZ_REQUIRE(valid_reg(m, t->tag_reg));
            if (t->tag) {
                FUZZ_REQUIRE(t->tag_reg >= 0 && t->tag->kind == CTF_INT);
                for (uint32_t r = 0; r < t->tag->n_ranges; r++)
                    FUZZ_REQUIRE(t->option_of_range[r] >= -1 &&
                                 t->option_of_range[r] < (int32_t)t->n_members);
            }
        }
        for (uint32_t i = 0; i < t->n_members; i++) {
            const ctf_member *mb = &t->members[i];
            FUZZ_REQUIRE(mb->name && mb->type);
            FUZZ_REQUIRE(valid_reg(m, mb->reg) && valid_reg(m, mb->role_reg));
            FUZZ_REQUIRE(mb->type->depth < t->depth);
            check_type(m, mb->type, depth + 1, budget);
        }
        break;
    case CTF_ARRAY:
    case CTF_SEQUENCE:
        FUZZ_REQUIRE(t->elem && t->elem->depth < t->depth);
        FUZZ_REQUIRE(t->elem->min_bits >= 1); /* else the reader loops without reading */
        if (t->kind == CTF_SEQUENCE)
            FUZZ_REQUIRE(t->length_reg >= 0 && valid_reg(m, t->length_reg));
        else
            FUZZ_REQUIRE(t->length <= CTF_TSDL_MAX_ARRAY);
        check_type(m, t->elem, depth + 1, budget);
        break;
    default:
        FUZZ_REQUIRE(!"a type of no kind");
    }
}

static void check_meta(const ctf_meta *m)
{
    FUZZ_REQUIRE(m->n_regs >= CTF_ROLE_COUNT && m->n_regs <= CTF_TSDL_MAX_REGS);
    FUZZ_REQUIRE(m->n_clocks <= CTF_TSDL_MAX_CLOCKS);
    FUZZ_REQUIRE(m->n_streams >= 1 && m->n_streams <= CTF_TSDL_MAX_STREAMS);
    FUZZ_REQUIRE(m->n_events <= CTF_TSDL_MAX_EVENTS);
    for (uint32_t c = 0; c < m->n_clocks; c++)
        FUZZ_REQUIRE(m->clocks[c].name && m->clocks[c].freq > 0);
    unsigned budget = CHECK_BUDGET;
    check_type(m, m->packet_header, 0, &budget);
    for (uint32_t s = 0; s < m->n_streams; s++) {
        const ctf_stream_class *sc = &m->streams[s];
        FUZZ_REQUIRE(ctf_meta_stream(m, sc->id) == sc); /* ids unique */
        check_type(m, sc->packet_context, 0, &budget);
        check_type(m, sc->event_header, 0, &budget);
        check_type(m, sc->event_context, 0, &budget);
        FUZZ_REQUIRE(!sc->n_by_id || sc->by_id);
        FUZZ_REQUIRE(sc->n_by_id <= CTF_TSDL_MAX_EVENT_ID + 1);
        for (uint32_t id = 0; id < sc->n_by_id; id++) {
            const ctf_event_class *ec = sc->by_id[id];
            if (!ec)
                continue;
            FUZZ_REQUIRE(ec >= m->events && ec < m->events + m->n_events);
            FUZZ_REQUIRE(ec->id == id && (m->n_streams == 1 || ec->stream_id == sc->id));
        }
        if (sc->procname_member >= 0)
            FUZZ_REQUIRE(sc->event_context &&
                         (uint32_t)sc->procname_member < sc->event_context->n_members);
    }
    for (uint32_t e = 0; e < m->n_events; e++) {
        const ctf_event_class *ec = &m->events[e];
        FUZZ_REQUIRE(ec->name != NULL);
        check_type(m, ec->context, 0, &budget);
        check_type(m, ec->fields, 0, &budget);
        FUZZ_REQUIRE(ec->blob_member == -1 ||
                     (ec->fields && (uint32_t)ec->blob_member < ec->fields->n_members));
    }
}

/* Step 1: the TSDL parser alone. */
static gcs_status parse_alone(const uint8_t *text, size_t size)
{
    char *copy = malloc(size ? size : 1);
    FUZZ_REQUIRE(copy != NULL);
    memcpy(copy, text, size);
    ctf_meta m;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st = ctf_meta_parse(&m, copy, size, "fuzz/metadata", &err);
    if (st == GCS_OK) {
        check_meta(&m);
    } else {
        FUZZ_REQUIRE(st < 0 && err.status == st && err.reason[0] != '\0');
        FUZZ_REQUIRE(err.offset <= size);
    }
    ctf_meta_free(&m);
    free(copy);
    return st;
}

/* What the reader makes of the metadata file `file` (plain text: the
 * step 1 text, maybe behind a comment, so parsed as step 1 parsed it):
 * the status of checking it, else parsed. */
static gcs_status predict(const uint8_t *file, size_t size, gcs_status parsed)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st = gcs_ctf_check_metadata(file, size, "fuzz/metadata", &err);
    return st == GCS_OK ? parsed : st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *zero = memchr(data, 0, size);
    size_t meta_len = zero ? (size_t)(zero - data) : size;
    const uint8_t *stream = zero ? zero + 1 : data + size;
    size_t stream_len = (size_t)(data + size - stream);

    gcs_status parsed = parse_alone(data, meta_len);

    static const char prefix[] = "/* CTF 1.8 */\n";
    bool has_prefix = meta_len >= 6 && memcmp(data, "/* CTF", 6) == 0;
    size_t file_len = meta_len + (has_prefix ? 0 : sizeof prefix - 1);
    uint8_t *file = malloc(file_len ? file_len : 1);
    FUZZ_REQUIRE(file != NULL);
    if (!has_prefix)
        memcpy(file, prefix, sizeof prefix - 1);
    memcpy(file + (file_len - meta_len), data, meta_len);
    gcs_status meta_st = predict(file, file_len, parsed);

    make_folder();
    write_file("metadata", file, file_len);
    write_file("channel0_0", stream, stream_len);
    free(file);

    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(folder, &err);
    FUZZ_REQUIRE(src != NULL);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    FUZZ_REQUIRE(r != NULL);
    const gcs_event *ev;
    gcs_status st;
    uint64_t events = 0;
    int64_t last_time = INT64_MIN;
    bool in_order = true; /* then the first and last times are the extremes */
    bool verbose = getenv("FUZZ_CTFREAD_VERBOSE") != NULL; /* for triage */
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        FUZZ_REQUIRE(ev->type != NULL);
        if (verbose)
            fprintf(stderr, "event %s t=%lld pid=%u tid=%llu cpu=%u payload=%u\n",
                    ev->type->name ? ev->type->name : "?", (long long)ev->timestamp, ev->pid,
                    (unsigned long long)ev->tid, ev->processor, ev->payload_size);
        FUZZ_REQUIRE(ev->payload_size == 0 || ev->payload != NULL);
        events++;
        in_order = in_order && ev->timestamp >= last_time;
        last_time = ev->timestamp;
        FUZZ_REQUIRE(events <= 8 * (uint64_t)stream_len);
    }
    if (verbose)
        fprintf(stderr, "status %d offset %llu: %s\n", (int)st, (unsigned long long)err.offset,
                st < 0 ? err.reason : "");
    FUZZ_REQUIRE(st == GCS_END || st < 0);
    if (st < 0) {
        FUZZ_REQUIRE(err.status == st && err.reason[0] != '\0');
        if (meta_st != GCS_OK) {
            FUZZ_REQUIRE(events == 0);
            FUZZ_REQUIRE(st == meta_st);
        } else {
            FUZZ_REQUIRE(err.offset <= stream_len);
        }
    } else {
        FUZZ_REQUIRE(meta_st == GCS_OK);
    }
    const gcs_reader_stats *stats = gcs_reader_get_stats(r);
    FUZZ_REQUIRE(stats->events == events);

    /* 3. The counting path (gcs_reader_scan: the container counts the
     * events it proves fit, sink->tally) counts as the delivery did. */
    gcs_error scan_err;
    gcs_error_clear(&scan_err);
    gcs_source *scan_src = gcs_source_open_file(folder, &scan_err);
    FUZZ_REQUIRE(scan_src != NULL);
    gcs_reader *scan = gcs_reader_new(scan_src, NULL, &scan_err);
    FUZZ_REQUIRE(scan != NULL);
    gcs_status scan_st = gcs_reader_scan(scan, &scan_err);
    const gcs_reader_stats *counted = gcs_reader_get_stats(scan);
    FUZZ_REQUIRE(scan_st == st);
    if (st < 0)
        FUZZ_REQUIRE(scan_err.offset == err.offset && strcmp(scan_err.reason, err.reason) == 0);
    FUZZ_REQUIRE(counted->events == stats->events);
    FUZZ_REQUIRE(counted->undecodable_events == stats->undecodable_events);
    FUZZ_REQUIRE(counted->unknown_events == stats->unknown_events);
    FUZZ_REQUIRE(counted->lost_events == stats->lost_events);
    FUZZ_REQUIRE(counted->events == 0 || !in_order || (counted->first_timestamp == stats->first_timestamp &&
                                          counted->last_timestamp == stats->last_timestamp));
    gcs_reader_free(scan);
    gcs_source_free(scan_src);
    gcs_reader_free(r);
    gcs_source_free(src);
    return 0;
}
