/*
 * format/ctf/ctf_native.c - the CTF container without babeltrace2: our own
 * reader of the traces LTTng writes (docs/format-ctf.md, "Our own reader").
 *
 * Each trace folder's metadata is parsed by ctf_tsdl.c; each stream file
 * (every regular file of the folder but "metadata" and dot files) is read
 * one packet at a time with pread into a buffer of that packet's content
 * (files are not mapped: a mapped stream file took twice as long to read,
 * one page fault per few pages; docs/performance.md, "Twentieth
 * landing"):
 *
 *   packet   := trace.packet.header  stream.packet.context  event*
 *   event    := stream.event.header  stream.event.context  event.context  event.fields
 *
 * (CTF 1.8 sections 5 and 6.) The packet header's stream_id selects the
 * stream class; the context's packet_size and content_size (bits) bound the
 * packet and its events; the header's "id" fields (the last one read wins:
 * LTTng's compact id, then the extended one) select the event class; the
 * fields mapped to a clock rebuild the clock's value (timestamp_begin, then
 * each event's 27- or 64-bit timestamp). Every file keeps its next event
 * decoded; the container reports the earliest (by nanoseconds from the
 * clock's origin, so kernel and user-space traces interleave as in
 * babeltrace2's muxer; ties broken as that muxer breaks them, see
 * comes_before), many a step (native_step says until when).
 *
 * Events are reported as the babeltrace2 path reports them (ctf.c): same
 * metadata rows in order of first appearance, payloads in the manifest's
 * layout, pid/tid from vpid/vtid, processor from cpu_id, procname names.
 * Memory: one packet per stream file (LTTng's sub-buffers, 512 KiB to a few
 * MiB), not the trace; the first 8 MiB of them carved from one mapping
 * offered for huge pages (CTF_ARENA_BYTES). A stream file cut by another process while it is
 * read is a read error at the packet that is gone.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "format/ctf/ctf.h"
#include "format/ctf/ctf_decode.h"
#include "format/ctf/ctf_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* x86-64 with GCC or clang: a string scan for AVX2, taken where the
 * processor has it (the build itself assumes SSE2 only). */
#if defined(__x86_64__) && defined(__GNUC__)
#define CTF_AVX2_SCAN 1
#include <immintrin.h>
#endif

/* Stream files of one trace folder. */
#define CTF_MAX_STREAM_FILES 65536u
/* The largest packet read (LTTng's sub-buffers are at most a few MiB). */
#define CTF_MAX_PACKET_BYTES ((uint64_t)256 << 20)
/* The first read of a packet, to find its size. */
#define CTF_PACKET_PROBE 4096u
/* The packet buffers of the stream files are carved from one mapping of
 * this many bytes (virtual; a 2 MiB huge page is taken where first
 * touched, gcs_big_resize): the first packets of the files (LTTng's
 * sub-buffers, 512 KiB-1 MiB, one file per CPU) fault a few huge pages
 * when the trace is opened instead of one 4 KiB page after another
 * (~15 us each in a paravirtualized guest: docs/performance.md,
 * twenty-third landing). Buffers that do not fit are malloc's. */
#define CTF_ARENA_BYTES ((size_t)8 << 20)

/* Under AddressSanitizer the arena's bytes are poisoned but for the
 * blocks carved, each followed by a poisoned red zone: a read past a
 * packet buffer is caught as past a malloc'd one is. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTF_ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(CTF_ARENA_ASAN)
#define CTF_ARENA_ASAN 1
#endif
#if defined(CTF_ARENA_ASAN)
#include <sanitizer/asan_interface.h>
#define CTF_ARENA_REDZONE 64u
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define CTF_ARENA_REDZONE 0u
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif
/* Events reported in one step at most (released together at its end). */
#define CTF_EVENTS_PER_STEP 1024u
/* Rebuilt payloads of one step (the buffer never moves during a step). */
#define CTF_STEP_BYTES ((size_t)1 << 20)
/* The decoder's steps (ctf_read calls) a packet may take: per bit of the
 * packet, plus a constant for its header. LTTng's layouts take about one
 * step per 10 bits; empty structs nested through typealiases could take
 * 2^depth steps reading nothing (ctf_decode.h). */
#define CTF_STEPS_PER_BIT 8u
#define CTF_STEPS_SLACK 65536u
/* How far ahead of an event read_event_quick asks for the packet's
 * bytes (__builtin_prefetch): 1 KiB, some six of LTTng's events. */
#define CTF_PREFETCH_AHEAD 1024
/* The packet header's magic (CTF 1.8 section 5). */
#define CTF_PACKET_MAGIC 0xC1FC1FC1u

/* One step of a count plan: align the position to `align` bits, then
 * skip `bits` fixed bits, or `strings` NUL-terminated strings one after
 * the other (byte-aligned). */
typedef struct ctf_skip_step {
    uint32_t align;
    uint32_t strings; /* 0: a fixed run */
    uint64_t bits;
} ctf_skip_step;

enum { PLAN_UNKNOWN = 0, PLAN_NONE, PLAN_READY };

/*
 * How to count an event class's events without rebuilding their payloads
 * (sink->tally: see count_plan_of and docs/format-ctf.md): its fields as
 * skip steps, the payload read_payload would build from them (fixed
 * bytes and UTF-16 strings), and the verdict against the reader's tally
 * slot, made once for the slot's values it was made from.
 */
typedef struct ctf_count_plan {
    uint8_t state; /* PLAN_* */
    bool raw;      /* fields->is_raw: read_payload points at the packet */
    /* Every step aligned to a byte at most and every fixed run whole
     * bytes: from a byte boundary the skip never leaves one, so it counts
     * bytes (skip_bytes). */
    bool bytewise;
    /* A bytewise plan's steps as most classes have them: a fixed run,
     * strings, a fixed run, each maybe absent (fixed fields, or fixed
     * fields then strings): skip_parts, without skip_bytes' loop. */
    bool in_parts;
    uint64_t head_bytes, tail_bytes;
    uint32_t part_strings;
    /* A bytewise skip's: read_payload points at the packet (raw, fields
     * present), and the decoder steps its walk takes (none then). */
    bool bytewise_direct;
    uint32_t bytewise_walk;
    uint32_t walk_steps; /* the decoder's steps (ctf_read calls) of the walk */
    uint32_t n_steps;
    ctf_skip_step *steps;
    gcs_tally_layout built; /* strings of 2-byte units */
    uint32_t built_fixed;   /* built's fixed bytes in all */
    /* The verdict, for the slot values in for_*. */
    bool decided, count, short_row;
    /* PLAN_READY: the class is written as a byte array after whole
     * integers only (blob_plain), read by read_blob. */
    uint8_t blob_state;
    const gcs_tally_layout *for_layout;
    uint8_t for_mode;
    uint32_t for_min;
    /* Whether the class counts (count_instead before the skip), as found
     * at the container's sink_calls == verdict_at: nothing it depends on
     * (the tally, the class's row and slot) changes until the sink is
     * called again. */
    bool counts_now;
    uint64_t verdict_at;
} ctf_count_plan;

typedef struct ctf_trace {
    ctf_meta meta;
    char *path;
    /* Metadata rows by event class index (0: not reported yet). */
    uint32_t *row_of_class;
    /* Count plans by event class index (made at a class's first count). */
    ctf_count_plan *plans;
    /* Per clock: nanoseconds from the origin at cycle 0, for a clock of
     * 1 GHz (ns_from_origin adds the cycles). */
    bool clock_ns[CTF_TSDL_MAX_CLOCKS];
    __int128 clock_ns_base[CTF_TSDL_MAX_CLOCKS];
    /* Per clock of 1 GHz whose base fits int64_t (LTTng's): the base as
     * one, and the values below clock_key_room whose sum with it is an
     * int64_t too (0 for other clocks: none), for order keys without
     * 128-bit sums (order_key_at). */
    int64_t clock_key_base[CTF_TSDL_MAX_CLOCKS];
    uint64_t clock_key_room[CTF_TSDL_MAX_CLOCKS];
} ctf_trace;

typedef struct ctf_file {
    ctf_trace *trace;
    char *path;
    int fd;
    uint64_t size;
    uint64_t packet_at, packet_bytes; /* the packet in data, in the file */
    const uint8_t *data; /* the bytes read_at made available (buf) */
    uint8_t *buf;
    size_t buf_cap;
    bool buf_in_arena; /* buf is carved from the container's arena (not freed alone) */
    uint64_t buf_at, buf_len; /* buf holds file bytes [buf_at, buf_at + buf_len) */
    ctf_decoder d;
    uint64_t *regs;
    const ctf_stream_class *sc;
    uint32_t cpu_id;
    uint64_t discarded; /* the stream's events_discarded count so far */
    bool in_packet, done;
    /* The packet's stream class has LTTng's event header and flat context,
     * the sink counts (sink->tally, when the packet began) and the
     * shortcuts are on: its events may take read_event_quick. */
    bool quick;
    size_t quick_procname_len; /* then: the procname's bytes read (read_flat_context's) */
    /* babeltrace2's id of this file's stream (its first packet's
     * stream_instance_id, or a number by path order), for ties. */
    bool has_stream_key;
    uint64_t stream_key;
    /* The next event, decoded. */
    bool has_event;
    const ctf_event_class *ec;
    int64_t timestamp;
    /* Its nanoseconds from the clock's origin (the order across files)
     * held to int64_t's range (LTTng's fit): a different order_key is the
     * order of the nanoseconds, in one compare; an equal one leaves it to
     * them (ns_of, from the clock's value and index). */
    int64_t order_key;
    int32_t clock_index;
    size_t cls; /* its class's index in the trace's meta.events */
    uint32_t pid;
    uint64_t tid;
    /* The event's procname: its bytes in the packet (valid until the file
     * reads its next packet, after the event is reported), up to
     * GCS_CTF_PROCNAME_CAP - 1 of them; a NUL may end it earlier. */
    const char *procname;
    size_t procname_len;
    bool payload_unsupported;
    const uint8_t *payload_data; /* in buf (the packet) or payload.data */
    uint32_t payload_size;
    gcs_buf payload;
    /* The event is counted into sink->tally, its payload skipped
     * (skip_payload), and whether it is short of its type's fixed size. */
    bool counted, counted_short;
    /* The bytes its payload takes in the step's buffer: a payload rebuilt
     * in f->payload (0: in the packet, or none); for a counted event, the
     * payload read_payload would have rebuilt (as if it had). */
    uint32_t step_bytes;
} ctf_file;

typedef struct native_container {
    gcs_container base;
    ctf_trace *traces;
    size_t n_traces;
    ctf_file *files;
    size_t n_files;
    uint8_t *arena;    /* CTF_ARENA_BYTES for packet buffers (read_at); NULL: none */
    size_t arena_used;
    char *tmp_dir;
    bool has_deferred;
    gcs_error deferred;
    bool info_sent;
    ctf_file *last; /* reported last step (the heap's top): advanced at the next */
    uint8_t *step_buf; /* CTF_STEP_BYTES: this step's rebuilt payloads */
    /* Files with an event decoded, as a binary heap by (ns, index): the
     * top is the next event to report. */
    ctf_file **heap;
    size_t heap_n;
    /* The heap's runner-up (the earlier of the top's children), valid while
     * only the top's key has changed since it was found: a top whose next
     * event comes before it stays on top without a sift (top_changed). */
    bool has_second, keep_top; /* keep_top: the shortcut taken (gcs_ctf_shortcuts) */
    ctf_file *second;
    size_t second_at; /* its place in the heap (1 or 2) */
    uint32_t rows;
    uint64_t events;
    int64_t last_timestamp;
    gcs_ctf_names names;
    /* Steps begun and sink calls made: the sink may change its tally only
     * then (container.h), so a class's verdict (ctf_count_plan) holds while
     * this stays. Starts at 1 (a plan's verdict_at 0: none yet). */
    uint64_t sink_calls;
    bool keep_verdicts; /* the shortcut taken (gcs_ctf_shortcuts) */
} native_container;

/* gcs_ctf_native_shortcuts: false reads everything the long way. */
bool gcs_ctf_shortcuts = true;

void gcs_ctf_native_shortcuts(bool on) { gcs_ctf_shortcuts = on; }

/* The path shown in messages: below tmp_dir (a zip's member) or as is. */
static const char *shown_path(const native_container *c, const char *path)
{
    size_t tl = c->tmp_dir ? strlen(c->tmp_dir) : 0;
    if (tl && strncmp(path, c->tmp_dir, tl) == 0 && path[tl] == '/')
        return path + tl + 1;
    return path;
}

/* ---- opening ---- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stream files of trace folder dir, sorted by name. */
static gcs_status list_files(native_container *c, ctf_trace *t, gcs_error *err)
{
    DIR *dir = opendir(t->path);
    if (!dir)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot open trace folder %s: %s",
                        shown_path(c, t->path), strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    gcs_status st = GCS_OK;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && st == GCS_OK) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "metadata") == 0)
            continue;
        char path[4096];
        int len = snprintf(path, sizeof path, "%s/%s", t->path, e->d_name);
        struct stat sb;
        if (len <= 0 || (size_t)len >= sizeof path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (n == CTF_MAX_STREAM_FILES)
            st = GCS_FAIL(err, GCS_ERR_LIMIT, 0, "trace folder %s: over %u stream files",
                          shown_path(c, t->path), CTF_MAX_STREAM_FILES);
        else if (!gcs_array_reserve((void **)&names, &cap, n + 1, sizeof *names, 16) ||
                 !(names[n] = strdup(path)))
            st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        else
            n++;
    }
    closedir(dir);
    if (st == GCS_OK && n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        if (st == GCS_OK) {
            ctf_file *v = realloc(c->files, (c->n_files + 1) * sizeof *v);
            if (!v) {
                st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
            } else {
                c->files = v;
                ctf_file *f = &v[c->n_files++];
                memset(f, 0, sizeof *f);
                f->trace = t;
                f->path = names[i];
                f->fd = -1;
                names[i] = NULL;
                gcs_buf_init(&f->payload, GCS_MAX_PAYLOAD_SIZE);
            }
        }
        free(names[i]);
    }
    free(names);
    return st;
}

/* Reads and parses the metadata of trace t. */
static gcs_status load_metadata(native_container *c, ctf_trace *t, gcs_error *err)
{
    char path[4096];
    int len = snprintf(path, sizeof path, "%s/metadata", t->path);
    if (len <= 0 || (size_t)len >= sizeof path)
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0, "path too long: %s/metadata", t->path);
    const char *shown = shown_path(c, path);
    uint8_t *data;
    size_t size;
    gcs_status st = gcs_ctf_read_metadata_file(path, shown, &data, &size, err);
    if (st != GCS_OK)
        return st;
    gcs_buf text;
    gcs_buf_init(&text, CTF_METADATA_MAX_BYTES);
    st = gcs_ctf_metadata_text(data, size, shown, &text, err);
    free(data);
    if (st == GCS_OK)
        st = ctf_meta_parse(&t->meta, (const char *)text.data, text.len, shown, err);
    gcs_buf_free(&text);
    if (st == GCS_OK && (!(t->row_of_class = calloc(t->meta.n_events + 1, sizeof *t->row_of_class)) ||
                         !(t->plans = calloc(t->meta.n_events + 1, sizeof *t->plans))))
        st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    for (uint32_t k = 0; st == GCS_OK && k < t->meta.n_clocks; k++) {
        const ctf_clock *clk = &t->meta.clocks[k];
        t->clock_ns[k] = clk->freq == 1000000000;
        t->clock_ns_base[k] = (__int128)clk->offset_s * 1000000000 + (__int128)clk->offset;
        if (t->clock_ns[k] && t->clock_ns_base[k] >= INT64_MIN && t->clock_ns_base[k] <= INT64_MAX) {
            int64_t base = (int64_t)t->clock_ns_base[k];
            t->clock_key_base[k] = base;
            /* value <= INT64_MAX - base (value <= INT64_MAX for a base below 0) */
            t->clock_key_room[k] = base >= 0 ? (uint64_t)(INT64_MAX - base) + 1 : (uint64_t)1 << 63;
        }
    }
    return st;
}

/* ---- packets ---- */

static gcs_status file_error(native_container *c, ctf_file *f, gcs_status status, uint64_t at,
                             const char *what, gcs_error *err)
{
    return GCS_FAIL(err, status, at, "stream file %s: %s at byte %llu", shown_path(c, f->path),
                    what, (unsigned long long)at);
}

/* Makes f->data point at file bytes [at, at + n), read into buf; bytes
 * from `at` already there (a packet's probe) are kept, the rest read. */
static gcs_status read_at(native_container *c, ctf_file *f, uint64_t at, uint64_t n,
                          gcs_error *err)
{
    uint64_t got = f->buf_at == at && f->buf_len <= n ? f->buf_len : 0;
    if (n > f->buf_cap) {
        /* A packet's content: from the arena while it has room, the whole
         * packet's size up to a power of two (LTTng's sub-buffers are one,
         * so the next packets' content fits it; a block outgrown stays
         * unused); a probe, or past the arena: malloc's. The bytes kept
         * move along. */
        size_t need = 64, cap = (size_t)n;
        while (need < n || need < f->packet_bytes)
            need *= 2; /* n is at most CTF_MAX_PACKET_BYTES: no overflow */
        uint8_t *b;
        if (n <= CTF_PACKET_PROBE)
            need = SIZE_MAX; /* not from the arena */
        else if (!c->arena && c->arena_used == 0) {
            c->arena = gcs_big_resize(NULL, 0, CTF_ARENA_BYTES);
            c->arena_used = c->arena ? 0 : CTF_ARENA_BYTES; /* none: do not ask again */
            if (c->arena)
                ARENA_POISON(c->arena, CTF_ARENA_BYTES);
        }
        if (c->arena && need <= CTF_ARENA_BYTES - CTF_ARENA_REDZONE - c->arena_used) {
            b = c->arena + c->arena_used;
            c->arena_used += need + CTF_ARENA_REDZONE;
            ARENA_UNPOISON(b, need);
            if (got)
                memcpy(b, f->buf, (size_t)got);
            if (!f->buf_in_arena)
                free(f->buf);
            f->buf_in_arena = true;
            cap = need; /* the block's size */
        } else {
            b = f->buf_in_arena ? malloc((size_t)n) : realloc(f->buf, (size_t)n);
            if (!b)
                return GCS_FAIL(err, GCS_ERR_NOMEM, at, "out of memory");
            if (f->buf_in_arena && got)
                memcpy(b, f->buf, (size_t)got);
            f->buf_in_arena = false;
        }
        f->buf = b;
        f->buf_cap = cap;
    }
    f->data = f->buf;
    f->buf_at = at;
    f->buf_len = got;
    while (got < n) {
        ssize_t r = pread(f->fd, f->buf + got, (size_t)(n - got), (off_t)(at + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return GCS_FAIL(err, GCS_ERR_IO, at + got, "cannot read stream file %s: %s",
                            shown_path(c, f->path), r < 0 ? strerror(errno) : "it shrank");
        got += (uint64_t)r;
        f->buf_len = got;
    }
    return GCS_OK;
}

/* Whether struct t has an integer member `name` mapped to a clock. */
static bool has_clock_member(const ctf_type *t, const char *name)
{
    for (uint32_t i = 0; t && t->kind == CTF_STRUCT && i < t->n_members; i++)
        if (strcmp(t->members[i].name, name) == 0 && t->members[i].type->kind == CTF_INT &&
            t->members[i].type->clock >= 0)
            return true;
    return false;
}

/* Decodes the header and context of the packet at f->packet_at from its
 * first avail bytes (at f->data): GCS_ERR_TRUNCATED (err not set) when they
 * go past them. */
static gcs_status packet_start(native_container *c, ctf_file *f, uint64_t avail, gcs_error *err)
{
    ctf_trace *t = f->trace;
    const ctf_meta *m = &t->meta;
    ctf_decoder *d = &f->d;
    d->meta = m;
    d->regs = f->regs;
    d->data = f->data;
    d->pos = 0;
    d->end = avail * 8;
    d->steps = 0;
    d->max_steps = CTF_STEPS_PER_BIT * d->end + CTF_STEPS_SLACK;
    d->too_many_steps = false;
    memset(f->regs, 0, m->n_regs * sizeof *f->regs);
    gcs_status st = GCS_OK;
    if (m->packet_header && (st = ctf_read(d, m->packet_header, NULL)) != GCS_OK)
        goto bad;
    if ((m->header_roles & (1u << CTF_ROLE_MAGIC)) && f->regs[CTF_ROLE_MAGIC] != CTF_PACKET_MAGIC)
        return file_error(c, f, GCS_ERR_CORRUPT, f->packet_at,
                          "a packet without the magic 0xC1FC1FC1", err);
    uint64_t sid = f->regs[CTF_ROLE_STREAM_ID];
    f->sc = ctf_meta_stream(m, sid);
    if (!f->sc)
        return file_error(c, f, GCS_ERR_CORRUPT, f->packet_at,
                          "a packet of a stream class the metadata does not declare", err);
    if (f->sc->packet_context && (st = ctf_read(d, f->sc->packet_context, NULL)) != GCS_OK)
        goto bad;
    /* babeltrace2 (2.0, src.ctf.fs) names a file's stream by its first
     * packet's stream_instance_id, if that packet has a timestamp_begin
     * too; others get numbers by path order (number_streams). */
    if (f->packet_at == 0 && (m->header_roles & (1u << CTF_ROLE_STREAM_INSTANCE_ID)) &&
        has_clock_member(f->sc->packet_context, "timestamp_begin")) {
        f->has_stream_key = true;
        f->stream_key = f->regs[CTF_ROLE_STREAM_INSTANCE_ID];
    }
    return GCS_OK;
bad: /* GCS_ERR_TRUNCATED: the caller reads more or finds the file cut */
    return st == GCS_ERR_TRUNCATED ? st
                                   : file_error(c, f, GCS_ERR_CORRUPT, f->packet_at,
                                                "a packet header the metadata does not describe",
                                                err);
}

/* Loads the next packet of f (f->done at the end of the file or a cut). */
static gcs_status next_packet(native_container *c, ctf_file *f, gcs_error *err)
{
    /* babeltrace2 sets the clock to a packet's timestamp_end when it ends
     * (never back, as for LTTng's traces whose last event comes after
     * it): the next packet's events count from there when it has no
     * timestamp_begin. */
    if (f->in_packet && f->sc && (f->sc->context_roles & (1u << CTF_ROLE_TIMESTAMP_END)) &&
        f->regs[CTF_ROLE_TIMESTAMP_END] > f->d.clock)
        f->d.clock = f->regs[CTF_ROLE_TIMESTAMP_END];
    f->in_packet = false;
    uint64_t at = f->packet_at + f->packet_bytes;
    if (at >= f->size) {
        f->done = true;
        return GCS_OK;
    }
    f->packet_at = at;
    f->packet_bytes = 0;
    uint64_t left = f->size - at;
    uint64_t probe = left < CTF_PACKET_PROBE ? left : CTF_PACKET_PROBE;
    gcs_status st;
    for (;;) {
        if ((st = read_at(c, f, at, probe, err)) != GCS_OK)
            return st;
        st = packet_start(c, f, probe, err);
        if (st != GCS_ERR_TRUNCATED || probe == left || probe >= CTF_MAX_PACKET_BYTES)
            break;
        probe = probe * 16 > left ? left : probe * 16;
    }
    const ctf_stream_class *sc = f->sc;
    if (st == GCS_ERR_TRUNCATED && probe == left) {
        /* The file ends inside this packet's header or context. */
        goto cut;
    }
    if (st == GCS_ERR_TRUNCATED)
        return file_error(c, f, GCS_ERR_LIMIT, at, "a packet header over 256 MiB", err);
    if (st != GCS_OK)
        return st;
    uint64_t packet_bits = (sc->context_roles & (1u << CTF_ROLE_PACKET_SIZE))
                               ? f->regs[CTF_ROLE_PACKET_SIZE]
                               : 8 * left;
    uint64_t content_bits = (sc->context_roles & (1u << CTF_ROLE_CONTENT_SIZE))
                                ? f->regs[CTF_ROLE_CONTENT_SIZE]
                                : packet_bits;
    if (packet_bits % 8 || packet_bits == 0 || content_bits > packet_bits ||
        content_bits < f->d.pos)
        return file_error(c, f, GCS_ERR_CORRUPT, at,
                          "a packet whose sizes do not hold its header (or content past it)", err);
    if (packet_bits / 8 > CTF_MAX_PACKET_BYTES)
        return file_error(c, f, GCS_ERR_LIMIT, at, "a packet over 256 MiB", err);
    if (packet_bits / 8 > left)
        goto cut;
    f->packet_bytes = packet_bits / 8;
    uint64_t header_bits = f->d.pos;
    /* The content, not the padding after it (no event reaches there). */
    uint64_t content_bytes = (content_bits + 7) / 8;
    if (content_bytes > probe && (st = read_at(c, f, at, content_bytes, err)) != GCS_OK)
        return st;
    f->d.data = f->data;
    f->d.pos = header_bits;
    f->d.end = content_bits;
    f->d.max_steps = f->d.steps + CTF_STEPS_PER_BIT * content_bits + CTF_STEPS_SLACK;
    f->cpu_id = (uint32_t)f->regs[CTF_ROLE_CPU_ID];
    f->in_packet = true;
    f->quick = c->keep_verdicts && c->base.sink->tally && /* (it counts: else nothing is quick) */
               sc->lttng_header != CTF_LTTNG_HEADER_NONE && sc->header_has_id &&
               sc->context_flat && sc->context_lttng;
    f->quick_procname_len =
        sc->procname_len < GCS_CTF_PROCNAME_CAP - 1 ? sc->procname_len : GCS_CTF_PROCNAME_CAP - 1;
    if (sc->context_roles & (1u << CTF_ROLE_EVENTS_DISCARDED)) {
        /* A running count per stream: what it grew by was lost before this
         * packet (a smaller value counts nothing, as in babeltrace2). */
        uint64_t now = f->regs[CTF_ROLE_EVENTS_DISCARDED];
        uint64_t lost = now > f->discarded ? now - f->discarded : 0;
        f->discarded = now;
        if (lost && c->base.sink->events_lost)
            c->base.sink->events_lost(c->base.sink->ctx, lost);
    }
    if (c->base.sink->block) /* "blocks" of a CTF trace are its packets */
        c->base.sink->block(c->base.sink->ctx);
    c->sink_calls++;
    return GCS_OK;
cut:
    f->done = true;
    if (!c->has_deferred) {
        c->has_deferred = true;
        GCS_FAIL(&c->deferred, GCS_ERR_TRUNCATED, at,
                 "stream file %s ends at byte %llu inside a packet; read up to byte %llu (its "
                 "whole packets)",
                 shown_path(c, f->path), (unsigned long long)f->size, (unsigned long long)at);
    }
    return GCS_OK;
}

/* ---- events ---- */

/* The clock value in nanoseconds from the clock's origin (for the order
 * across files; babeltrace2's muxer orders by the same). */
static inline __int128 ns_from_origin(const ctf_trace *t, int32_t clock, uint64_t value)
{
    if (clock < 0)
        return (__int128)value;
    if (t->clock_ns[clock]) /* LTTng's: offset_s * 10^9 + offset + value, no division */
        return t->clock_ns_base[clock] + value;
    const ctf_clock *k = &t->meta.clocks[clock];
    __int128 cycles = (__int128)k->offset + value;
    return (__int128)k->offset_s * 1000000000 + cycles * 1000000000 / (__int128)k->freq;
}

/* ns held to int64_t's range: ns itself when its high half only extends
 * the low half's sign (one compare), else the bound on its side. */
static inline int64_t order_key_of(__int128 ns)
{
    int64_t low = (int64_t)ns;
    if ((int64_t)(ns >> 64) == low >> 63)
        return low;
    return ns < 0 ? INT64_MIN : INT64_MAX;
}

/* order_key_of the clock value's nanoseconds: for a clock whose base is
 * an int64_t, their sum where it is one (no 128-bit arithmetic). */
static inline int64_t order_key_at(const ctf_trace *t, int32_t clock, uint64_t value)
{
    if (clock >= 0 && value < t->clock_key_room[clock])
        return t->clock_key_base[clock] + (int64_t)value;
    return order_key_of(ns_from_origin(t, clock, value));
}

/* An integer of a flat context: n little-endian bytes at p. */
static inline __attribute__((always_inline)) uint64_t context_int(const uint8_t *p, unsigned n,
                                                                  bool is_signed)
{
    if (n == 4) { /* LTTng's vpid and vtid: one load, the sign moved by a flip and a subtraction */
        uint64_t v = ctf_le_bytes(p, 4);
        return is_signed ? (v ^ 0x80000000u) - 0x80000000u : v;
    }
    uint64_t v = ctf_le_bytes(p, n);
    return is_signed ? ctf_sign_extend(v, 8 * n) : v;
}

/* A flat event context (ctf_stream_class.context_flat): vpid, vtid and
 * procname from their byte offsets, as the walk would read them. */
static gcs_status read_flat_context(ctf_file *f, const ctf_stream_class *sc)
{
    ctf_decoder *d = &f->d;
    if (!ctf_align(d, 8) || (uint64_t)sc->context_bytes > (d->end - d->pos) / 8)
        return GCS_ERR_TRUNCATED;
    const uint8_t *p = d->data + (d->pos >> 3);
    d->pos += 8 * (uint64_t)sc->context_bytes;
    if (sc->context_lttng && gcs_ctf_shortcuts) { /* the same values, without a test each */
        uint64_t vpid_mask = sc->vpid_sign_mask, vtid_mask = sc->vtid_sign_mask;
        f->regs[CTF_ROLE_VPID] = (ctf_le_bytes(p + sc->vpid_at, 4) ^ vpid_mask) - vpid_mask;
        f->regs[CTF_ROLE_VTID] = (ctf_le_bytes(p + sc->vtid_at, 4) ^ vtid_mask) - vtid_mask;
        f->procname = (const char *)p + sc->procname_at;
        f->procname_len = sc->procname_len < GCS_CTF_PROCNAME_CAP - 1 ? sc->procname_len
                                                                      : GCS_CTF_PROCNAME_CAP - 1;
        return GCS_OK;
    }
    f->regs[CTF_ROLE_VPID] =
        sc->vpid_at >= 0 ? context_int(p + sc->vpid_at, sc->vpid_bytes, sc->vpid_signed) : 0;
    f->regs[CTF_ROLE_VTID] =
        sc->vtid_at >= 0 ? context_int(p + sc->vtid_at, sc->vtid_bytes, sc->vtid_signed) : 0;
    if (sc->procname_at >= 0) {
        /* The field's bytes as they are: the names stop at its NUL. */
        f->procname = (const char *)p + sc->procname_at;
        f->procname_len = sc->procname_len < GCS_CTF_PROCNAME_CAP - 1 ? sc->procname_len
                                                                      : GCS_CTF_PROCNAME_CAP - 1;
    }
    return GCS_OK;
}

/* Is member m an array of plain bytes (the runtime's "__data__")? */
static bool is_byte_array(const ctf_member *m)
{
    const ctf_type *t = m->type;
    return (t->kind == CTF_ARRAY || t->kind == CTF_SEQUENCE) && t->elem->kind == CTF_INT &&
           t->elem->size == 8 && (t->elem->align & 7) == 0 && !t->elem->is_text;
}

/* Whether class ec's fields are little-endian integers of 1, 2, 4 or 8
 * bytes at byte alignment or less, none mapped to a clock, and then, last,
 * the byte array the event is written as (the runtime's "__data__"): what
 * read_blob reads without the walk. */
static bool blob_plain(const ctf_meta *m, const ctf_event_class *ec)
{
    const ctf_type *fields = ec->fields;
    int32_t blob = ec->blob_member;
    if (!fields || fields->kind != CTF_STRUCT || blob < 0 ||
        (uint32_t)blob + 1 != fields->n_members || fields->align > 8 ||
        !is_byte_array(&fields->members[blob]) || fields->members[blob].type->align > 8)
        return false;
    for (int32_t i = 0; i < blob; i++) {
        const ctf_type *t = fields->members[i].type;
        bool big = t->byte_order == CTF_BO_BE || (t->byte_order == CTF_BO_NATIVE && m->big_endian);
        if (t->kind != CTF_INT || t->clock >= 0 || t->align > 8 || big ||
            (t->size != 8 && t->size != 16 && t->size != 32 && t->size != 64))
            return false;
    }
    return true;
}

/* read_payload for a class that is blob_plain, from a byte boundary: its
 * integers (registers written as the walk writes them) and its byte
 * array, pointed at, with the walk's bounds and decoder steps. False,
 * nothing moved, where the walk would fail or stop at the payload cap: it
 * reads the event then. */
static inline __attribute__((always_inline)) bool read_blob(ctf_file *f)
{
    ctf_decoder *d = &f->d;
    const ctf_type *fields = f->ec->fields;
    int32_t blob = f->ec->blob_member;
    if (d->pos & 7)
        return false;
    const uint8_t *p = d->data + (d->pos >> 3), *start = p;
    uint64_t left = (d->end - d->pos) / 8; /* n bytes fit in the bits left iff in these */
    for (int32_t i = 0; i < blob; i++) {
        const ctf_member *m = &fields->members[i];
        unsigned n = m->type->size / 8;
        if (n > left)
            return false;
        uint64_t v = ctf_le_bytes(p, n);
        if (m->type->is_signed)
            v = ctf_sign_extend(v, m->type->size);
        if (m->reg >= 0)
            d->regs[m->reg] = v;
        if (m->role_reg >= 0)
            d->regs[m->role_reg] = v;
        p += n;
        left -= n;
    }
    const ctf_type *a = fields->members[blob].type;
    uint64_t len = a->kind == CTF_SEQUENCE ? d->regs[a->length_reg] : a->length;
    /* the array's ctf_read is the walk's one step here */
    if (len > left || len > GCS_MAX_PAYLOAD_SIZE || (d->max_steps && d->steps + 1 > d->max_steps))
        return false;
    d->steps++;
    d->span = p;
    d->span_len = (size_t)len;
    d->pos += 8 * ((uint64_t)(p - start) + len);
    f->payload_data = p;
    f->payload_size = (uint32_t)len;
    return true;
}

/* read_blob out of line, for read_event_quick (read_payload has it in
 * line). */
static __attribute__((noinline)) bool read_blob_call(ctf_file *f) { return read_blob(f); }

/* Whether f's event, its byte array just pointed at by read_blob (the
 * payload in the manifest's layout as it is), is counted into sink->tally
 * instead of handed over: its class's row has a slot that takes it, as
 * netperf's counting loop asks (gcs_tally_takes_strings: every row of a
 * plain slot, the rows whose strings surely end in the others). Sets
 * f->counted_* then. */
static bool blob_counts(const native_container *c, ctf_file *f)
{
    const gcs_tally *tally = c->base.sink->tally;
    uint32_t row = f->trace->row_of_class[f->cls];
    if (!tally || row == 0 || row >= tally->n_slots)
        return false;
    const gcs_tally_slot *s = &tally->slots[row];
    uint32_t size = f->payload_size;
    const gcs_cursor payload = gcs_cur_make(f->payload_data, size, 0);
    if (!gcs_tally_takes_strings(s, &payload, size))
        return false;
    f->step_bytes = 0; /* (in the packet) */
    f->counted_short = size < s->min_size;
    return true;
}

/* The event's fields in the manifest's layout (f->payload_data/size):
 * pointing into the packet where its bytes are that layout already (fixed
 * little-endian fields, or the byte array an event is written as), rebuilt
 * into f->payload otherwise; a byte array read so may be counted instead
 * (blob_counts: f->counted). Errors are the decoder's (err not set). */
static gcs_status read_payload(native_container *c, ctf_file *f)
{
    ctf_decoder *d = &f->d;
    const ctf_type *fields = f->ec->fields;
    gcs_status st = GCS_OK;
    if (fields->is_raw) {
        /* Only where the fields start at a byte: aligned to less than 8
         * bits, they may start inside one (then the walk below). */
        if (!ctf_align(d, fields->align))
            return GCS_ERR_TRUNCATED;
        if ((d->pos & 7) == 0) {
            if (fields->fixed_bits > d->end - d->pos)
                return GCS_ERR_TRUNCATED;
            f->payload_data = d->data + (d->pos >> 3);
            f->payload_size = (uint32_t)(fields->fixed_bits / 8);
            d->pos += fields->fixed_bits;
            return GCS_OK;
        }
    }
    int32_t blob = f->ec->blob_member;
    uint64_t start = d->pos;
    if (blob >= 0) { /* (a plain blob's array is a byte array: blob_plain) */
        ctf_count_plan *plan = &f->trace->plans[f->cls];
        if (plan->blob_state == PLAN_UNKNOWN)
            plan->blob_state =
                gcs_ctf_shortcuts && blob_plain(&f->trace->meta, f->ec) ? PLAN_READY : PLAN_NONE;
        if (plan->blob_state == PLAN_READY && read_blob(f)) {
            f->counted = blob_counts(c, f); /* (false without a tally) */
            return GCS_OK;
        }
    }
    if (blob >= 0 && is_byte_array(&fields->members[blob])) {
        if (!ctf_align(d, fields->align))
            return GCS_ERR_TRUNCATED;
        for (uint32_t i = 0; i < fields->n_members && st == GCS_OK; i++) {
            st = ctf_read_member(d, &fields->members[i], NULL);
            if (st == GCS_OK && (int32_t)i == blob) {
                if (d->span_len > GCS_MAX_PAYLOAD_SIZE)
                    st = GCS_ERR_LIMIT;
                f->payload_data = d->span;
                f->payload_size = (uint32_t)d->span_len;
            }
        }
    } else if (blob >= 0) {
        if (!ctf_align(d, fields->align))
            return GCS_ERR_TRUNCATED;
        for (uint32_t i = 0; i < fields->n_members && st == GCS_OK; i++)
            st = ctf_read_member(d, &fields->members[i], (int32_t)i == blob ? &f->payload : NULL);
    } else {
        st = ctf_read(d, fields, &f->payload);
    }
    if ((st == GCS_ERR_LIMIT && !d->too_many_steps) || st == GCS_ERR_NOMEM) {
        /* Past the payload cap: kept without payload, as ctf.c; the fields
         * read again without output, to reach the next event. */
        d->pos = start;
        if ((st = ctf_read(d, fields, NULL)) != GCS_OK)
            return st;
        f->payload.len = 0;
        f->payload_data = NULL;
        f->payload_size = 0;
        if (c->base.sink->anomaly)
            c->base.sink->anomaly(c->base.sink->ctx, c->events, "CTF payload beyond the payload cap");
        c->sink_calls++;
        return GCS_OK;
    }
    if (st == GCS_OK && !f->payload_data) {
        f->payload_data = f->payload.data;
        f->payload_size = (uint32_t)f->payload.len;
    }
    return st;
}

/* ---- counting without rebuilding (sink->tally) ---- */

/* Appends a fixed run of the plan being made (none when bits is 0 and the
 * alignment is a byte's: it would do nothing). */
static void plan_push_run(ctf_count_plan *p, uint32_t align, uint64_t bits)
{
    if (align > 8 || bits > 0)
        p->steps[p->n_steps++] = (ctf_skip_step){align, 0, bits};
}

/* Makes p for event class ec: PLAN_READY when its fields are integers,
 * floats and strings only, none another field or the clock reads (so
 * skipping them changes nothing but the position); PLAN_NONE otherwise
 * (or without memory: its events are then built as always). */
static void plan_make(ctf_count_plan *p, const ctf_event_class *ec)
{
    p->state = PLAN_NONE;
    const ctf_type *fields = ec->fields;
    if (!fields) {
        p->state = PLAN_READY; /* no payload: nothing to skip */
        return;
    }
    if (fields->kind != CTF_STRUCT || ec->blob_member >= 0 ||
        !(p->steps = calloc((size_t)fields->n_members + 1, sizeof *p->steps)))
        return;
    p->raw = fields->is_raw;
    p->walk_steps = 1; /* ctf_read of the struct; its integers take none */
    uint32_t n = 0, run_align = fields->align; /* the struct's alignment opens the first run */
    uint64_t run_bits = 0;
    bool run_open = true;
    for (uint32_t i = 0; i < fields->n_members; i++) {
        const ctf_member *m = &fields->members[i];
        const ctf_type *t = m->type;
        if (t->kind == CTF_STRING) {
            if (n == GCS_TALLY_MAX_STRINGS)
                return;
            if (run_open)
                plan_push_run(p, run_align, run_bits);
            run_open = false;
            if (p->n_steps && p->steps[p->n_steps - 1].strings) /* one more after a string */
                p->steps[p->n_steps - 1].strings++;
            else
                p->steps[p->n_steps++] = (ctf_skip_step){8, 1, 0};
            p->built.unit[n++] = 2;
            p->walk_steps++;
            continue;
        }
        if ((t->kind != CTF_INT && t->kind != CTF_FLOAT) || m->reg >= 0 || m->role_reg >= 0 ||
            t->clock >= 0)
            return;
        if (t->kind == CTF_FLOAT)
            p->walk_steps++;
        /* A member aligned to at most the run's alignment sits at a known
         * offset from the run's start: the run takes it. */
        if (!run_open || t->align > run_align) {
            if (run_open)
                plan_push_run(p, run_align, run_bits);
            run_open = true;
            run_align = t->align;
            run_bits = 0;
        }
        run_bits = ((run_bits + t->align - 1) & ~(uint64_t)(t->align - 1)) + t->size;
        p->built.fixed[n] += (t->size + 7) / 8;
    }
    if (run_open)
        plan_push_run(p, run_align, run_bits);
    p->bytewise = gcs_ctf_shortcuts;
    for (uint32_t k = 0; k < p->n_steps; k++)
        if (p->steps[k].align > 8 || p->steps[k].bits % 8)
            p->bytewise = false;
    if (p->bytewise) {
        uint32_t k = 0;
        if (k < p->n_steps && !p->steps[k].strings)
            p->head_bytes = p->steps[k++].bits / 8;
        if (k < p->n_steps && p->steps[k].strings)
            p->part_strings = p->steps[k++].strings;
        if (k < p->n_steps && !p->steps[k].strings)
            p->tail_bytes = p->steps[k++].bits / 8;
        p->in_parts = k == p->n_steps;
        p->bytewise_direct = p->raw && p->n_steps > 0;
        p->bytewise_walk = p->bytewise_direct ? 0 : p->walk_steps;
    }
    p->built.n_strings = n;
    for (uint32_t k = 0; k <= n; k++)
        p->built_fixed += p->built.fixed[k];
    p->state = PLAN_READY;
}

/* Does the payload read_payload builds by plan p (strings of 2-byte
 * units) have layout l? */
static bool built_is(const ctf_count_plan *p, const gcs_tally_layout *l)
{
    if (l->n_strings != p->built.n_strings)
        return false;
    for (uint32_t k = 0; k < l->n_strings; k++)
        if (l->unit[k] != 2)
            return false;
    for (uint32_t k = 0; k <= l->n_strings; k++)
        if (l->fixed[k] != p->built.fixed[k])
            return false;
    return true;
}

/* May p's events be counted into slot s? Made once per slot values: when
 * the payload would be built in the slot's layout (it fits), or, in a
 * plainly counted slot, of fixed size (short when below its min_size). */
static bool plan_counts(ctf_count_plan *p, const gcs_tally_slot *s)
{
    if (!p->decided || p->for_layout != s->layout || p->for_mode != s->counted ||
        p->for_min != s->min_size) {
        p->decided = true;
        p->for_layout = s->layout;
        p->for_mode = s->counted;
        p->for_min = s->min_size;
        p->count = p->short_row = false;
        if (s->layout && built_is(p, s->layout)) {
            p->count = true;
        } else if (s->counted == GCS_TALLY_PLAIN && p->built.n_strings == 0) {
            p->count = true;
            p->short_row = p->built_fixed < s->min_size;
        }
    }
    return p->count;
}

/* A block of the string scan with a NUL or a non-ASCII byte, as masks
 * (bit i: byte i of the block), k strings still to end: `end` the bytes up
 * to the NUL of the last (that NUL included) when it is in the block, 0
 * if not (k then less the strings that end in it); not_ascii when a
 * non-ASCII byte comes first. */
typedef struct strings_block_seen {
    bool not_ascii;
    uint32_t k;
    size_t end;
} strings_block_seen;

static inline __attribute__((always_inline)) strings_block_seen strings_block(uint64_t high,
                                                                              uint64_t nul,
                                                                              uint32_t k)
{
    while (nul && k > 1) { /* a NUL that ends one of the first k - 1 */
        nul &= nul - 1;
        k--;
    }
    uint64_t before = nul ? (nul & -nul) - 1 : ~(uint64_t)0; /* bytes up to the NUL sought */
    strings_block_seen s = {(high & before) != 0, k, nul ? (size_t)__builtin_ctzll(nul) + 1 : 0};
    return s;
}

/* The bytes of the k strings one after the other at p (k >= 1), the last
 * one's NUL included, when they lie within `left` bytes and all are ASCII
 * (each byte then one UTF-16 unit, the NULs too): false when a NUL is
 * missing or another byte comes first. 32 bytes at a time where SSE2 is,
 * the NULs of short strings taken from one block's mask. */
static inline __attribute__((always_inline)) bool ascii_strings_sse2(const uint8_t *p,
                                                                     size_t left, uint32_t k,
                                                                     size_t *bytes)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    for (; left - i >= 32; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16));
        /* the lesser byte of the two halves is 0 where either has a NUL;
         * a block of neither NULs nor high bits takes one mask */
        __m128i z = _mm_cmpeq_epi8(_mm_min_epu8(a, b), zero);
        if (_mm_movemask_epi8(_mm_or_si128(z, _mm_or_si128(a, b))) == 0)
            continue;
        uint32_t high = (uint32_t)_mm_movemask_epi8(a) | (uint32_t)_mm_movemask_epi8(b) << 16;
        uint32_t nul = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, zero)) |
                       (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, zero)) << 16;
        strings_block_seen s = strings_block(high, nul, k);
        if (s.not_ascii || s.end) { /* a non-ASCII byte first, or the last NUL */
            *bytes = i + s.end;
            return !s.not_ascii;
        }
        k = s.k;
    }
#endif
    for (; i < left; i++) {
        if (p[i] & 0x80)
            return false;
        if (p[i] == 0 && --k == 0) {
            *bytes = i + 1;
            return true;
        }
    }
    return false;
}

#if defined(CTF_AVX2_SCAN)
/* ascii_strings_sse2 64 bytes at a time (AVX2): the same test on each
 * block, the NULs of a block in one 64-bit mask; the last bytes, under
 * a block, by ascii_strings_sse2. The bytes returned (SIZE_MAX for
 * false: the caller keeps them in a register). */
__attribute__((target("avx2"))) static size_t ascii_strings_avx2(const uint8_t *p, size_t left,
                                                                 uint32_t k)
{
    size_t i = 0;
    const __m256i zero = _mm256_setzero_si256();
    for (; left - i >= 64; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 32));
        __m256i z = _mm256_cmpeq_epi8(_mm256_min_epu8(a, b), zero);
        if (_mm256_movemask_epi8(_mm256_or_si256(z, _mm256_or_si256(a, b))) == 0)
            continue;
        uint64_t high = (uint64_t)(uint32_t)_mm256_movemask_epi8(a) |
                        (uint64_t)(uint32_t)_mm256_movemask_epi8(b) << 32;
        uint64_t nul = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero)) |
                       (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, zero)) << 32;
        strings_block_seen s = strings_block(high, nul, k);
        if (s.not_ascii || s.end) /* a non-ASCII byte first, or the last NUL */
            return s.not_ascii ? SIZE_MAX : i + s.end;
        k = s.k;
    }
    size_t n;
    if (!ascii_strings_sse2(p + i, left - i, k, &n))
        return SIZE_MAX;
    return i + n;
}
#endif

/* ascii_strings_sse2, or its AVX2 form where the processor has AVX2. */
static inline __attribute__((always_inline)) bool ascii_strings(const uint8_t *p, size_t left,
                                                                uint32_t k, size_t *bytes)
{
#if defined(CTF_AVX2_SCAN)
    if (__builtin_cpu_supports("avx2")) {
        size_t n = ascii_strings_avx2(p, left, k);
        *bytes = n;
        return n != SIZE_MAX;
    }
#endif
    return ascii_strings_sse2(p, left, k, bytes);
}

/* skip_payload's walk in whole bytes, for a bytewise plan from a byte
 * boundary: the same bounds (a fixed run of n bytes fits in the bits left
 * exactly when it fits in their whole bytes; alignments to a byte or less
 * change nothing). The bits taken into *pos, the strings' units into
 * *units; false where the walk in bits would fail. */
static bool skip_bytes(const ctf_decoder *d, const ctf_count_plan *p, uint64_t *pos,
                       uint64_t *units)
{
    const uint8_t *start = d->data + (*pos >> 3), *q = start;
    size_t left = (size_t)((d->end - *pos) / 8);
    for (uint32_t i = 0; i < p->n_steps; i++) {
        const ctf_skip_step *s = &p->steps[i];
        size_t n = (size_t)(s->bits / 8);
        if (s->strings) {
            if (!ascii_strings(q, left, s->strings, &n))
                return false;
            *units += n;
        } else if (n > left) {
            return false;
        }
        q += n;
        left -= n;
    }
    *pos += 8 * (uint64_t)(q - start);
    return true;
}

/* Whether the parts of a plan in_parts (its head bytes, strings, tail
 * bytes) lie within the `left` bytes at q, as skip_bytes would find them:
 * the strings' bytes (their units) into *n then. */
static inline __attribute__((always_inline)) bool parts_fit(const ctf_count_plan *p,
                                                           const uint8_t *q, size_t left,
                                                           size_t *n)
{
    *n = 0;
    if (p->head_bytes > left)
        return false;
    q += p->head_bytes;
    left -= (size_t)p->head_bytes;
    if (p->part_strings) {
        if (!ascii_strings(q, left, p->part_strings, n))
            return false;
        left -= *n;
    }
    return p->tail_bytes <= left;
}

/* skip_bytes for a plan in_parts (parts_fit), with the same bounds. */
static inline bool skip_parts(const ctf_decoder *d, const ctf_count_plan *p, uint64_t *pos,
                              uint64_t *units)
{
    size_t n;
    if (!parts_fit(p, d->data + (*pos >> 3), (size_t)((d->end - *pos) / 8), &n))
        return false;
    *units += n;
    *pos += 8 * (p->head_bytes + n + p->tail_bytes);
    return true;
}

/* Skips f's payload by plan p from d->pos, as read_payload would read it
 * (the same bounds, alignments and decoder steps), and sets f->counted_*.
 * False, nothing moved, where read_payload would fail, stop at the payload
 * cap, or meet a non-ASCII string (whose UTF-16 size takes decoding): it
 * reads the event then, as always. */
static bool skip_payload(ctf_file *f, const ctf_count_plan *p)
{
    ctf_decoder *d = &f->d;
    uint64_t pos = d->pos, end = d->end, units = 0;
    bool direct = false; /* read_payload points at the packet */
    uint32_t walk;
    if (p->bytewise && (pos & 7) == 0) {
        if (p->in_parts ? !skip_parts(d, p, &pos, &units) : !skip_bytes(d, p, &pos, &units))
            return false;
        direct = p->bytewise_direct;
        walk = p->bytewise_walk;
    } else {
        for (uint32_t i = 0; i < p->n_steps; i++) {
            const ctf_skip_step *s = &p->steps[i];
            pos = (pos + s->align - 1) & ~(uint64_t)(s->align - 1);
            if (pos > end)
                return false;
            if (i == 0 && p->raw && (pos & 7) == 0)
                direct = true;
            if (!s->strings) {
                if (s->bits > end - pos)
                    return false;
                pos += s->bits;
                continue;
            }
            size_t n;
            if (!ascii_strings(d->data + (pos >> 3), (size_t)((end - pos) / 8), s->strings, &n))
                return false;
            pos += 8 * (uint64_t)n;
            units += n;
        }
        walk = !f->ec->fields || direct ? 0 : p->walk_steps;
    }
    uint64_t size = p->built_fixed + 2 * units;
    if (size > GCS_MAX_PAYLOAD_SIZE || (d->max_steps && d->steps + walk > d->max_steps))
        return false;
    d->steps += walk;
    d->pos = pos;
    f->step_bytes = direct ? 0 : (uint32_t)size;
    return true;
}

/* Whether the events of class cls (ec, plan p) of trace t may be counted
 * without their payloads: the sink counts (sink->tally), the class's row
 * has a slot the reader filled, and the class's plan may count into it. */
static bool class_counts(const native_container *c, ctf_trace *t, size_t cls,
                         const ctf_event_class *ec, ctf_count_plan *p)
{
    const gcs_tally *tally = c->base.sink->tally;
    uint32_t row = t->row_of_class[cls];
    if (!tally || row == 0 || row >= tally->n_slots)
        return false;
    const gcs_tally_slot *s = &tally->slots[row];
    if (s->counted == GCS_TALLY_NO && !s->layout)
        return false;
    if (p->state == PLAN_UNKNOWN)
        plan_make(p, ec);
    return p->state == PLAN_READY && plan_counts(p, s);
}

/* class_counts for class cls (ec, plan p) of trace t, found again only
 * after a sink call (the verdict kept in p). */
static inline bool class_counts_now(const native_container *c, ctf_trace *t, size_t cls,
                                    const ctf_event_class *ec, ctf_count_plan *p)
{
    if (p->verdict_at != c->sink_calls || !c->keep_verdicts) {
        p->counts_now = class_counts(c, t, cls, ec, p);
        p->verdict_at = c->sink_calls;
    }
    return p->counts_now;
}

/* Whether f's event is counted without its payload: its class counts
 * (class_counts_now) and the payload skips (skip_payload). */
static bool count_instead(native_container *c, ctf_file *f)
{
    ctf_trace *t = f->trace;
    size_t cls = f->cls;
    ctf_count_plan *p = &t->plans[cls];
    if (!class_counts_now(c, t, cls, f->ec, p) || !skip_payload(f, p))
        return false;
    f->counted_short = p->short_row;
    return true;
}

/* read_event for the usual event of an LTTng stream (f->quick): its
 * header not extended, its class without a context, counted
 * (class_counts_now: the verdict found as read_event would) by a plan in
 * parts (parts_fit). Reads it as read_event would (the same checks,
 * values and decoder state; not the registers of vpid and vtid, nor the
 * `unsupported` flags, which nothing reads after a counted event) and
 * says true; false, nothing moved, for any other event: read_event reads
 * it. */
static inline __attribute__((always_inline)) bool read_event_quick(const native_container *c,
                                                                   ctf_file *f)
{
    ctf_decoder *d = &f->d;
    const ctf_stream_class *sc = f->sc;
    uint64_t at = d->pos; /* < d->end: more_in_packet */
    if (at & 7)
        return false;
    const uint8_t *p = d->data + (at >> 3);
    /* The lines of the events some six on asked for now (three lines:
     * an event's ~180 bytes), so that they are there when read: a hint,
     * which reads nothing and does not fault, past the packet too. */
    __builtin_prefetch(p + CTF_PREFETCH_AHEAD);
    __builtin_prefetch(p + CTF_PREFETCH_AHEAD + 64);
    __builtin_prefetch(p + CTF_PREFETCH_AHEAD + 128);
    size_t left = (size_t)((d->end - at) / 8), head;
    uint64_t id, stamp;
    bool large = sc->lttng_header == CTF_LTTNG_HEADER_LARGE;
    if (large) { /* a 16-bit id, a 32-bit timestamp */
        if (left < 6 || (id = ctf_le_bytes(p, 2)) == 65535)
            return false;
        stamp = ctf_le_bytes(p + 2, 4);
        head = 6;
    } else { /* a 5-bit id, a 27-bit timestamp */
        uint64_t w;
        if (left < 4 || ((w = ctf_le_bytes(p, 4)) & 31) == 31)
            return false;
        id = w & 31;
        stamp = w >> 5;
        head = 4;
    }
    const ctf_event_class *ec = id < sc->n_by_id ? sc->by_id[id] : NULL;
    if (!ec || ec->context)
        return false;
    ctf_trace *t = f->trace;
    ctf_count_plan *pl = &t->plans[ec->index];
    /* The flat context: byte-aligned after the header. */
    size_t ctx_bytes = sc->context_bytes;
    if (ctx_bytes > left - head)
        return false;
    const uint8_t *ctx = p + head;
    if (class_counts_now(c, t, ec->index, ec, pl) && pl->in_parts) {
        /* The payload's parts (a plan in parts is bytewise). */
        size_t n;
        if (!parts_fit(pl, ctx + ctx_bytes, left - head - ctx_bytes, &n))
            return false;
        uint64_t size = pl->built_fixed + 2 * (uint64_t)n;
        uint32_t walk = pl->bytewise_walk;
        if (size > GCS_MAX_PAYLOAD_SIZE || (d->max_steps && d->steps + walk > d->max_steps))
            return false;
        d->steps += walk;
        d->pos = at + 8 * (head + ctx_bytes + pl->head_bytes + n + pl->tail_bytes);
        f->ec = ec;
        f->cls = ec->index;
        f->step_bytes = pl->bytewise_direct ? 0 : (uint32_t)size;
        f->counted_short = pl->short_row;
    } else if (pl->blob_state == PLAN_READY && !ec->fields->is_raw) {
        /* A plain byte array (read_payload's first try, as its class
         * counts nothing by a plan): read_blob from the payload, counted
         * when its slot takes it (blob_counts sets step_bytes and
         * counted_short); else put back as it was (read_blob moved the
         * position and steps only; the registers it set the walk sets
         * alike). */
        uint64_t steps = d->steps;
        d->pos = at + 8 * (head + ctx_bytes);
        f->ec = ec;
        f->cls = ec->index;
        if (!read_blob_call(f) || !blob_counts(c, f)) {
            d->pos = at;
            d->steps = steps;
            return false;
        }
    } else {
        return false;
    }
    /* The event read: as read_event leaves it. */
    /* (as ctf_move_clock moves it; its clock_at and clock_bits, which
     * only ctf_stretch reads, not set) */
    uint64_t clock = ctf_clock_low(d->clock, stamp, large ? 0xFFFFFFFFu : 0x7FFFFFFu);
    d->clock = clock;
    d->clock_index = sc->header_clock;
    uint64_t vpid_mask = sc->vpid_sign_mask, vtid_mask = sc->vtid_sign_mask;
    uint64_t vpid = (ctf_le_bytes(ctx + sc->vpid_at, 4) ^ vpid_mask) - vpid_mask;
    uint64_t vtid = (ctf_le_bytes(ctx + sc->vtid_at, 4) ^ vtid_mask) - vtid_mask;
    f->procname = (const char *)ctx + sc->procname_at;
    f->procname_len = f->quick_procname_len;
    f->counted = true;
    f->pid = (uint32_t)vpid;
    f->tid = vtid;
    f->timestamp = (int64_t)clock;
    f->clock_index = sc->header_clock;
    f->order_key = order_key_at(t, sc->header_clock, clock);
    f->has_event = true;
    return true;
}

/* Decodes the event at f's position in its packet (one there: f->in_packet
 * and d.pos < d.end) into f's slots (f->has_event). */
static gcs_status read_event(native_container *c, ctf_file *f, gcs_error *err)
{
    gcs_status st = GCS_OK; /* the "__data__" loop below reads it first when no header,
                               context or event context was read before */
    ctf_decoder *d = &f->d;
    const ctf_stream_class *sc = f->sc;
    uint64_t at_bits = d->pos; /* the event's offset: packet_at + at_bits / 8 */
    d->unsupported = false;
    uint64_t id;
    if (sc->lttng_header != CTF_LTTNG_HEADER_NONE) {
        if ((st = ctf_read_lttng_header(d, sc->lttng_header, sc->header_clock, &id)) != GCS_OK)
            goto bad;
    } else {
        f->regs[CTF_ROLE_EVENT_ID] = 0;
        if (sc->event_header && (st = ctf_read(d, sc->event_header, NULL)) != GCS_OK)
            goto bad;
        id = f->regs[CTF_ROLE_EVENT_ID];
    }
    /* The event's time is the clock its header leaves (as in
     * babeltrace2 and TraceEvent); a field of its contexts or payload
     * mapped to the clock moves it for the events after. */
    uint64_t event_clock = d->clock;
    int32_t event_clock_index = d->clock_index;
    f->ec = !sc->header_has_id ? sc->sole : id < sc->n_by_id ? sc->by_id[id] : NULL;
    if (!f->ec)
        return file_error(c, f, GCS_ERR_CORRUPT, f->packet_at + at_bits / 8,
                          "an event of a class the metadata does not declare", err);
    f->cls = f->ec->index;
    f->procname = "";
    f->procname_len = 0;
    if (!sc->context_flat) { /* (the flat context sets them itself) */
        f->regs[CTF_ROLE_VPID] = 0;
        f->regs[CTF_ROLE_VTID] = 0;
    }
    if (sc->context_flat) {
        if ((st = read_flat_context(f, sc)) != GCS_OK)
            goto bad;
    } else if (sc->event_context) {
        const ctf_type *ctx = sc->event_context;
        if (!ctf_align(d, ctx->align)) {
            st = GCS_ERR_TRUNCATED;
            goto bad;
        }
        for (uint32_t i = 0; i < ctx->n_members; i++) {
            d->text = NULL;
            if ((st = ctf_read_member(d, &ctx->members[i], NULL)) != GCS_OK)
                goto bad;
            if ((int32_t)i == sc->procname_member && d->text) {
                f->procname = (const char *)d->text; /* in the packet */
                f->procname_len = d->text_len < GCS_CTF_PROCNAME_CAP - 1
                                      ? d->text_len
                                      : GCS_CTF_PROCNAME_CAP - 1;
            }
        }
    }
    if (f->ec->context && (st = ctf_read(d, f->ec->context, NULL)) != GCS_OK)
        goto bad;
    f->counted = count_instead(c, f);
    if (!f->counted) { /* (a counted event's payload is not looked at) */
        f->payload.len = 0;
        f->payload_data = NULL;
        f->payload_size = 0;
        if (f->ec->fields && (st = read_payload(c, f)) != GCS_OK)
            goto bad;
        if (!f->counted) /* (read_payload may count a byte array) */
            f->step_bytes = f->payload_size && f->payload_data == f->payload.data
                                ? f->payload_size
                                : 0;
    }
    if (d->pos == at_bits) /* nothing read: the same event again, forever */
        return file_error(c, f, GCS_ERR_CORRUPT, f->packet_at + at_bits / 8,
                          "an event of no bits", err);
    f->payload_unsupported = d->unsupported;
    f->pid = (uint32_t)f->regs[CTF_ROLE_VPID];
    f->tid = f->regs[CTF_ROLE_VTID];
    f->timestamp = (int64_t)event_clock;
    f->clock_index = event_clock_index;
    f->order_key = order_key_at(f->trace, event_clock_index, event_clock);
    f->has_event = true;
    return GCS_OK;
bad:
    return file_error(c, f, st == GCS_ERR_TRUNCATED ? GCS_ERR_CORRUPT : st,
                      f->packet_at + at_bits / 8,
                      d->too_many_steps ? "an event whose layout takes more steps to read than "
                                          "its packet's bits allow (types of no bits nested)"
                      : st == GCS_ERR_TRUNCATED ? "an event that runs past its packet's content"
                                                : "an event the metadata does not describe",
                      err);
}

/* Decodes the next event of f into f's slots (f->has_event), moving to
 * the next packet as needed. */
static gcs_status next_event(native_container *c, ctf_file *f, gcs_error *err)
{
    f->has_event = false;
    while (!f->done) {
        if (f->in_packet && f->d.pos < f->d.end)
            return read_event(c, f, err);
        gcs_status st = next_packet(c, f, err);
        if (st != GCS_OK)
            return st;
    }
    return GCS_OK;
}

/* ---- the container ---- */

static gcs_status report(native_container *c, ctf_file *f, gcs_error *err)
{
    const gcs_sink *sink = c->base.sink;
    ctf_trace *t = f->trace;
    size_t cls = f->cls;
    gcs_status st;
    /* A counted event's class has its row (class_counts), so the trace's
     * first event, which sends the info, came before it: neither to check. */
    if (f->counted) { /* the row counted here, as the sink would (see gcs_tally) */
        gcs_tally *tally = sink->tally;
        if (!gcs_ctf_names_repeat(&c->names, f->pid, f->procname, f->procname_len)) {
            gcs_ctf_names_report(&c->names, sink, f->pid, f->procname, f->procname_len);
            c->sink_calls++;
        }
        tally->slots[t->row_of_class[cls]].count++;
        int64_t ts = f->timestamp;
        if (f->counted_short)
            tally->short_rows++;
        if (tally->rows++ == 0) {
            tally->first_timestamp = tally->last_timestamp = ts;
        } else {
            if (ts < tally->first_timestamp)
                tally->first_timestamp = ts;
            if (ts > tally->last_timestamp)
                tally->last_timestamp = ts;
        }
        c->last_timestamp = ts;
        c->events++;
        return GCS_OK;
    }
    if (!c->info_sent) {
        c->info_sent = true;
        int32_t k = f->d.clock_index;
        const ctf_clock *clk = k >= 0 ? &t->meta.clocks[k] : NULL;
        c->sink_calls++;
        if ((st = gcs_ctf_send_info(sink, clk != NULL, clk ? clk->freq : 0, clk ? clk->offset_s : 0,
                                    clk ? clk->offset : 0, (uint64_t)f->timestamp, err)) != GCS_OK)
            return st;
    }
    if (!t->row_of_class[cls]) {
        t->row_of_class[cls] = ++c->rows;
        c->sink_calls++;
        if ((st = gcs_ctf_define_class(sink, f->ec->name, c->rows, c->events, err)) != GCS_OK)
            return st;
    }
    c->sink_calls++; /* (the calls below) */
    if (f->payload_unsupported) {
        if (sink->anomaly)
            sink->anomaly(sink->ctx, c->events, "CTF payload field of an unsupported kind");
        f->payload_size = 0;
    }
    gcs_raw_event raw;
    memset(&raw, 0, sizeof raw);
    raw.metadata_id = t->row_of_class[cls];
    raw.is_sorted = true;
    raw.pid = f->pid;
    raw.tid = f->tid;
    if (!gcs_ctf_names_repeat(&c->names, raw.pid, f->procname, f->procname_len))
        gcs_ctf_names_report(&c->names, sink, raw.pid, f->procname, f->procname_len);
    raw.capture_tid = raw.tid;
    raw.processor = f->cpu_id;
    raw.timestamp = f->timestamp;
    raw.payload = f->payload_size ? f->payload_data : NULL;
    raw.payload_size = f->payload_size;
    raw.offset = c->events;
    c->last_timestamp = raw.timestamp;
    c->events++;
    return sink->event(sink->ctx, &raw, err);
}

/* The nanoseconds from its clock's origin of f's event. */
static __int128 ns_of(const ctf_file *f)
{
    return ns_from_origin(f->trace, f->clock_index, (uint64_t)f->timestamp);
}

/* Whether a's next event goes before b's: the earlier in nanoseconds from
 * the clock's origin; at the same nanosecond, as babeltrace2's muxer
 * (2.0, common_muxing_compare_messages): the trace with a UUID before one
 * without, then by UUID bytes, then the lower stream class id, then the
 * lower stream id. Past that (two traces without UUIDs, which babeltrace2
 * orders by trace name), the file listed first. */
static bool comes_before(const ctf_file *a, const ctf_file *b)
{
    __int128 ns_a = ns_of(a), ns_b = ns_of(b);
    if (ns_a != ns_b)
        return ns_a < ns_b;
    const ctf_meta *ma = &a->trace->meta, *mb = &b->trace->meta;
    if (ma->has_uuid != mb->has_uuid)
        return ma->has_uuid;
    if (ma->has_uuid) {
        int u = memcmp(ma->uuid, mb->uuid, sizeof ma->uuid);
        if (u != 0)
            return u < 0;
    }
    if (a->sc->id != b->sc->id)
        return a->sc->id < b->sc->id;
    return a->stream_key < b->stream_key;
}

/* Does file a's event come before file b's? comes_before, then the file
 * listed first. */
static inline bool earlier(const ctf_file *fa, const ctf_file *fb)
{
    if (fa->order_key != fb->order_key) /* nearly always: ns and the ties' rules not needed */
        return fa->order_key < fb->order_key;
    if (comes_before(fa, fb))
        return true;
    return !comes_before(fb, fa) && fa < fb; /* files[] in listing order */
}

static void sift_down(native_container *c, size_t i)
{
    ctf_file **h = c->heap;
    size_t n = c->heap_n;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && earlier(h[l], h[m]))
            m = l;
        if (l + 1 < n && earlier(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        ctf_file *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The top file's event changed (f->has_event says whether it has one):
 * the heap made right again. While the top's next event comes before the
 * runner-up's (nothing else in the heap moved), it stays on top and the
 * runner-up stays the same: the one comparison sift_down would make that
 * decides, without the others. Otherwise a sift, and the runner-up found
 * again when next needed. */
static inline __attribute__((always_inline)) void top_changed(native_container *c,
                                                              bool has_event)
{
    if (has_event) {
        if (c->heap_n == 1)
            return;
        if (!c->keep_top)
            goto sift;
        if (!c->has_second) {
            ctf_file **h = c->heap;
            c->second_at = c->heap_n > 2 && earlier(h[2], h[1]) ? 2 : 1;
            c->second = h[c->second_at];
            c->has_second = true;
        }
        ctf_file *top = c->heap[0], *second = c->second;
        if (top->order_key < second->order_key ||
            (top->order_key == second->order_key && earlier(top, second)))
            return;
        /* The runner-up goes on top (it comes before the top's new event
         * and its sibling), as sift_down's first level would put it; the
         * sift goes on from its place. */
        c->heap[0] = second;
        c->heap[c->second_at] = top;
        c->has_second = false;
        sift_down(c, c->second_at);
        return;
    } else {
        c->heap[0] = c->heap[--c->heap_n];
    }
sift:
    c->has_second = false;
    sift_down(c, 0);
}

/* Does f's next event lie in the packet it holds (reading it moves no
 * buffer that reported events point into)? For a file with an event
 * decoded (on the heap): read_event read it in its packet, and only
 * next_packet leaves one or ends the file, so the position says. */
static bool more_in_packet(const ctf_file *f)
{
    return f->d.pos < f->d.end;
}

/* Reports the earliest events of the files, in time order, until a file
 * would need its next packet (its buffer holds payloads reported in this
 * step), CTF_EVENTS_PER_STEP, or the step's buffer of rebuilt payloads is
 * full; then a sequence point: they are all in order and may go. The file
 * reported last is advanced at the next step. */
static gcs_status native_step(gcs_container *base, gcs_error *err)
{
    native_container *c = (native_container *)base;
    const gcs_sink *sink = base->sink;
    gcs_status st;
    c->sink_calls++; /* (the reader ran since the last step) */
    if (c->last) {
        ctf_file *f = c->last;
        c->last = NULL;
        if ((st = next_event(c, f, err)) != GCS_OK)
            return st;
        top_changed(c, f->has_event); /* a file that ended goes off the heap */
    }
    if (c->heap_n == 0) {
        if (c->has_deferred) {
            *err = c->deferred;
            return c->deferred.status;
        }
        return GCS_END;
    }
    size_t used = 0;
    /* (Each file read in the loop has its next event: the heap keeps its
     * files.) */
    for (unsigned n = 0;; n++) {
        assert(c->heap_n > 0);
        ctf_file *best = c->heap[0];
        /* Timestamps are each clock's own cycles: where traces' clocks
         * differ (offsets), the order by nanoseconds may take them back, and
         * the sorter would reorder one step's events by them: a new step. */
        if (n > 0 && best->timestamp < c->last_timestamp)
            break;
        /* A payload rebuilt in the file's buffer is overwritten by its next
         * event: it moves to the step's buffer (unmoved until the next
         * step), or waits for a step of its own when it does not fit. */
        /* A counted event takes the room its payload would have taken, so
         * that steps end where they would (sequence points are counted). */
        uint32_t size = best->step_bytes;
        bool alone = false;
        if (size) {
            if (size <= CTF_STEP_BYTES - used) {
                if (!best->counted) {
                    memcpy(c->step_buf + used, best->payload_data, size);
                    best->payload_data = c->step_buf + used;
                }
                used += size;
            } else if (n > 0) {
                break;
            } else {
                alone = true;
            }
        }
        if ((st = report(c, best, err)) != GCS_OK)
            return st;
        if (alone || n + 1 == CTF_EVENTS_PER_STEP || !more_in_packet(best)) {
            c->last = best;
            break;
        }
        best->has_event = false; /* (its next event is in its packet: more_in_packet) */
        if (!(best->quick && read_event_quick(c, best)) && (st = read_event(c, best, err)) != GCS_OK)
            return st;
        top_changed(c, best->has_event);
    }
    /* The files are each in time order and merged here: they may go. */
    return sink->sequence_point(sink->ctx, c->last_timestamp, NULL, 0, err);
}

static void native_destroy(gcs_container *base)
{
    native_container *c = (native_container *)base;
    for (size_t i = 0; i < c->n_files; i++) {
        ctf_file *f = &c->files[i];
        if (f->fd >= 0)
            close(f->fd);
        free(f->path);
        if (!f->buf_in_arena)
            free(f->buf);
        free(f->regs);
        gcs_buf_free(&f->payload);
    }
    free(c->files);
    if (c->arena)
        ARENA_UNPOISON(c->arena, CTF_ARENA_BYTES);
    gcs_big_free(c->arena, CTF_ARENA_BYTES);
    free(c->heap);
    free(c->step_buf);
    for (size_t i = 0; i < c->n_traces; i++) {
        for (uint32_t k = 0; c->traces[i].plans && k <= c->traces[i].meta.n_events; k++)
            free(c->traces[i].plans[k].steps);
        free(c->traces[i].plans);
        ctf_meta_free(&c->traces[i].meta);
        free(c->traces[i].path);
        free(c->traces[i].row_of_class);
    }
    free(c->traces);
    gcs_ctf_names_free(&c->names);
    if (c->tmp_dir) {
        gcs_ctf_remove_tree(c->tmp_dir);
        free(c->tmp_dir);
    }
    free(c);
}

static const gcs_container_ops native_ops = {"ctf", native_step, native_destroy, false};

/* The stream ids babeltrace2 gives the files without a stream_instance_id:
 * 0, 1, ... in path order within each trace (the files are listed so). */
static void number_streams(native_container *c)
{
    uint64_t next = 0;
    for (size_t i = 0; i < c->n_files; i++) {
        ctf_file *f = &c->files[i];
        if (i > 0 && f->trace != c->files[i - 1].trace)
            next = 0;
        if (!f->has_stream_key)
            f->stream_key = next++;
    }
}

/* Opens every file and decodes its first event. */
static gcs_status open_files(native_container *c, gcs_error *err)
{
    for (size_t i = 0; i < c->n_files; i++) {
        ctf_file *f = &c->files[i];
        f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (f->fd < 0 || fstat(f->fd, &sb) != 0)
            return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot open stream file %s: %s",
                            shown_path(c, f->path), strerror(errno));
        f->size = (uint64_t)sb.st_size;
        f->regs = calloc(f->trace->meta.n_regs, sizeof *f->regs);
        if (!f->regs)
            return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        f->d.clock_index = -1;
        gcs_status st = next_event(c, f, err);
        if (st != GCS_OK)
            return st;
    }
    number_streams(c);
    if (!(c->heap = malloc((c->n_files ? c->n_files : 1) * sizeof *c->heap)) ||
        !(c->step_buf = malloc(CTF_STEP_BYTES)))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    for (size_t i = 0; i < c->n_files; i++)
        if (c->files[i].has_event)
            c->heap[c->heap_n++] = &c->files[i];
    for (size_t i = c->heap_n / 2; i-- > 0;)
        sift_down(c, i);
    return GCS_OK;
}

gcs_status gcs_ctf_native_open(gcs_stream *s, const gcs_sink *sink, char *const *inputs,
                               size_t n, char *tmp_dir, gcs_container **out, gcs_error *err)
{
    native_container *c = calloc(1, sizeof *c);
    if (!c)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    c->base.ops = &native_ops;
    c->base.stream = s;
    c->base.sink = sink;
    c->tmp_dir = tmp_dir;
    c->keep_top = gcs_ctf_shortcuts;
    c->keep_verdicts = gcs_ctf_shortcuts;
    c->sink_calls = 1;
    gcs_status st = GCS_OK;
    if (!(c->traces = calloc(n ? n : 1, sizeof *c->traces)))
        st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    for (size_t i = 0; i < n && st == GCS_OK; i++) {
        ctf_trace *t = &c->traces[c->n_traces++];
        if (!(t->path = strdup(inputs[i])))
            st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        else if ((st = load_metadata(c, t, err)) == GCS_OK)
            st = list_files(c, t, err);
    }
    if (st == GCS_OK)
        st = open_files(c, err);
    if (st != GCS_OK) {
        c->tmp_dir = NULL; /* stays the caller's */
        native_destroy(&c->base);
        return st;
    }
    *out = &c->base;
    return GCS_OK;
}
