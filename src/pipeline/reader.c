/*
 * pipeline/reader.c - the public reader, which is the pipeline itself:
 * source -> stream -> container -> sorter -> decoder -> typed gcs_event,
 * one call at a time. It sits above decode (names, schemas) and below the
 * analyses; containers plug in below it through format/container.h.
 *
 * gcs_reader_next steps the container only when the sorter has nothing
 * released, so a single block is parsed at a time and memory stays bounded
 * by the sorter's window. On a container error, the events already
 * buffered are released and delivered first; the error comes after them.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/error.h"
#include "decode/reader_names.h"
#include "decode/schema_fit.h"
#include "decode/schema_size.h"
#include "gcscope/decode.h"
#include "format/container.h"
#include "format/ctf/ctf.h"
#include "io/archive.h"
#include "gcscope/reader.h"
#include "pipeline/stack_table.h"
#include "sort/sorter.h"

/* Distinct metadata rows kept; past this a trace is refused. */
#define GCS_MAX_EVENT_TYPES ((size_t)1 << 20)
/* Bytes of metadata (names, schemas) kept for the reader's life. */
#define GCS_MAX_METADATA_BYTES ((size_t)256 << 20)

#define TYPE_CACHE_SIZE 64u

typedef enum reader_state {
    READER_OPENING,
    READER_READING,
    READER_DRAINING, /* input done or failed: deliver what is buffered */
    READER_DONE
} reader_state;

/* How a payload of a known type is checked against its schema. */
enum fit_check { FIT_NONE = 0 /* no fields */, FIT_FIXED, FIT_OTHER };

enum { WANT_UNASKED = 0, WANT_YES, WANT_NO };

#define NO_TYPE_INDEX UINT32_MAX

/* An event type with what the reader derives once for it. */
typedef struct type_entry {
    gcs_event_type pub; /* first: the public view is a pointer to this */
    bool fixed;         /* schema of fixed size: checking is one compare */
    uint32_t fixed_size;
    uint8_t check;      /* how a payload is checked against the schema (fit_check) */
    /* Known and of fixed size (or without fields): a payload fits when it
     * has at least min_size bytes. Else count_event asks more. */
    bool quick;
    uint32_t min_size;
    uint8_t want; /* options.want's answer: WANT_UNASKED, WANT_YES, WANT_NO */
    uint8_t tap;  /* options.tap's answer, the same way (WANT_UNASKED without options.tap) */
    /* Neither fixed nor empty: the compiled fit check (NULL: the walker),
     * and its shape when it is strings between fixed fields (the tally
     * slot's); fit_string the same when it is one string (checked inline
     * first: AllocationTick and the events naming a type), else unit 0
     * (several strings: the call to the compiled check scans them). */
    const gcs_fit_prog *fit;
    gcs_fit_string_shape fit_shape, fit_string;
    /* Known and of fixed fields and terminated strings only: that layout
     * (given with its tally slot), else NULL. */
    const gcs_tally_layout *layout;
} type_entry;

struct gcs_reader {
    gcs_stream stream;  /* the trace's bytes (an archive's member: see archive) */
    /* An archive or compressed file: outer holds the archive's own bytes,
     * the archive decompresses the chosen member into stream. */
    gcs_stream outer;
    bool has_outer;
    gcs_archive *archive;
    bool archive_checked; /* the first bytes were looked at for an archive */
    gcs_container *container;
    gcs_sink sink;
    gcs_arena meta_arena;
    gcs_trace_info info;
    bool have_info;
    /* metadata id -> type (open addressing), and arrival order list */
    gcs_event_type **type_slots;
    size_t type_slots_cap;
    gcs_event_type **types;
    size_t types_n, types_cap;
    gcs_sorter *sorter;
    gcs_reader_stats stats;
    gcs_event current;
    reader_state state;
    gcs_error final_error; /* status GCS_END or the error to return */
    double ticks_per_sec; /* the clock frequency; 0 when the trace gives none */
    /* Types of recently delivered events by metadata id (direct-mapped):
     * consecutive events alternate among a few types. */
    const gcs_event_type *type_cache[TYPE_CACHE_SIZE];
    bool activity_clear;             /* current's activity ids are zero */
    uint8_t current_pointer_code;    /* gcs_sorted_event.pointer_size behind current's */
    bool scanning;                   /* gcs_reader_scan: count, deliver nothing */
    gcs_reader_options opts;
    /* Process names the container gave (LTTng procname), by pid; hit:
     * the entry of the last pid looked up. */
    struct pid_name {
        uint32_t pid;
        char *name;
    } *pid_names;
    size_t pid_names_n, pid_names_cap, pid_names_hit;
    /* Events delivered (the first one's timestamp), and events counted
     * without delivery (skipped or scanned; earliest and latest). */
    uint64_t delivered, counted;
    /* Events the container says the tracer dropped (sink.events_lost). */
    uint64_t container_lost;
    int64_t delivered_first, counted_lo, counted_hi;
    /* The last event delivered was a tapped one (options.tap), of this
     * time: else the current event's. */
    bool tap_last;
    int64_t tap_last_timestamp;
    type_entry unresolvable; /* type of events whose placeholder could not be kept */
    /* Scanning: rows of quick types are counted by the container, per
     * metadata id (see gcs_tally); folded into types and stats by
     * fold_tally. */
    gcs_tally tally;
    /* tally.has_until (count_before_window): an event at or after the
     * window's start arrived since the last block began, and the events
     * counted by then (counted + tally.rows). */
    bool window_arrived;
    uint64_t window_counted;
    /* options.stacks: the distinct stacks, and the current span's ids. */
    gcs_stack_table stacks;
};

/* Metadata ids below this may be counted by the container. */
#define GCS_MAX_TALLY_SLOTS ((size_t)1 << 16)

static void fold_tally(gcs_reader *r);

static const char *const format_names[] = {"unknown", "nettrace", "netperf", "etl", "ctf",
                                               "profile"};

const char *gcs_format_name(gcs_format format)
{
    return (unsigned)format < sizeof format_names / sizeof format_names[0] ? format_names[format]
                                                                          : "unknown";
}

gcs_format gcs_format_sniff(const void *head, size_t n)
{
    return head ? gcs_container_sniff(head, n) : GCS_FORMAT_UNKNOWN;
}

static gcs_event_type *type_find(const gcs_reader *r, uint32_t id)
{
    if (!r->type_slots_cap)
        return NULL;
    size_t mask = r->type_slots_cap - 1;
    for (size_t h = (id * 2654435761u) & mask;; h = (h + 1) & mask) {
        gcs_event_type *t = r->type_slots[h];
        if (!t || t->metadata_id == id)
            return t;
    }
}

static gcs_status type_insert(gcs_reader *r, gcs_event_type *t, gcs_error *err)
{
    /* Rows the container counted belong to the old definition. */
    if (t->metadata_id < r->tally.n_slots) {
        fold_tally(r);
        r->tally.slots[t->metadata_id].counted = GCS_TALLY_NO;
        r->tally.slots[t->metadata_id].until_only = 0;
        r->tally.slots[t->metadata_id].layout = NULL;
    }
    if ((r->types_n + 1) * 2 > r->type_slots_cap) {
        if (r->types_n >= GCS_MAX_EVENT_TYPES)
            return GCS_FAIL(err, GCS_ERR_LIMIT, gcs_stream_offset(&r->stream),
                            "more than %zu metadata rows", GCS_MAX_EVENT_TYPES);
        size_t ncap = r->type_slots_cap ? r->type_slots_cap * 2 : 256;
        gcs_event_type **ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        for (size_t i = 0; i < r->type_slots_cap; i++) {
            gcs_event_type *o = r->type_slots[i];
            if (!o)
                continue;
            size_t h = (o->metadata_id * 2654435761u) & (ncap - 1);
            while (ns[h])
                h = (h + 1) & (ncap - 1);
            ns[h] = o;
        }
        free(r->type_slots);
        r->type_slots = ns;
        r->type_slots_cap = ncap;
    }
    if (!gcs_array_reserve((void **)&r->types, &r->types_cap, r->types_n + 1, sizeof *r->types,
                           64))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    size_t mask = r->type_slots_cap - 1;
    size_t h = (t->metadata_id * 2654435761u) & mask;
    while (r->type_slots[h] && r->type_slots[h]->metadata_id != t->metadata_id)
        h = (h + 1) & mask;
    /* A redefinition (V6 metadata flush) is listed too: the events counted
     * under the old row stay visible. Later events use the new row. */
    t->index = (uint32_t)r->types_n;
    r->types[r->types_n++] = t;
    r->type_slots[h] = t;
    /* A redefinition must not be served from the cache. */
    memset(r->type_cache, 0, sizeof r->type_cache);
    return GCS_OK;
}

static inline double msec_of(int64_t timestamp, int64_t start_ticks, double ticks_per_sec);
static void on_sequence_run(void *ctx, uint64_t capture_tid, uint32_t first, uint32_t last);

/* The first raw timestamp of [0, INT64_MAX] whose msec (msec_of, as
 * before_from reads it) is at or after options.from_msec, INT64_MAX when
 * none is: every timestamp of [0, *until) is before the window. False
 * when msec_of may not grow with the timestamp over that range (a start
 * below 0, no clock) or from_msec is no number. */
static bool window_start_ticks(const gcs_reader *r, int64_t *until)
{
    const int64_t start = r->info.start_ticks;
    const double from = r->opts.from_msec, tps = r->ticks_per_sec;
    /* With 0 <= start, timestamp - start does not wrap for a timestamp of
     * [0, INT64_MAX]; (double), x 1000 and / tps (> 0) keep the order. */
    if (start < 0 || !(tps > 0) || isnan(from))
        return false;
    if (!(msec_of(INT64_MAX, start, tps) >= from)) {
        *until = INT64_MAX;
        return true;
    }
    int64_t lo = 0, hi = INT64_MAX; /* the answer lies in [lo, hi] */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (msec_of(mid, start, tps) >= from)
            hi = mid;
        else
            lo = mid + 1;
    }
    *until = lo;
    return true;
}

/* options.from_msec of a gcs_reader_next read: the container counts the
 * rows before the window itself (of the types count_before_from hands it,
 * their slots until_only), when it tells a row's time before counting it
 * (counts_until); else every such event comes to count_before_from. */
static void count_before_window(gcs_reader *r)
{
    int64_t until;
    if (!r->opts.has_from_msec || r->scanning || !r->container ||
        !r->container->ops->counts_until || !window_start_ticks(r, &until))
        return;
    r->tally.has_until = true;
    r->tally.until = until;
    r->sink.tally = &r->tally;
    r->sink.sequence_run = on_sequence_run;
}

static gcs_status on_trace(void *ctx, const gcs_trace_info *info, gcs_error *err)
{
    gcs_reader *r = ctx;
    r->info = *info;
    r->have_info = true;
    r->ticks_per_sec = info->clock_frequency > 0 ? (double)info->clock_frequency : 0.0;
    r->current.pointer_size = info->pointer_size; /* unless an event says otherwise */
    count_before_window(r);
    return GCS_OK;
}

/* The layout of a known type's payloads (NULL when its schema has more
 * than fixed fields and terminated strings, or the arena is full). */
static const gcs_tally_layout *layout_of(gcs_reader *r, const type_entry *te)
{
    gcs_tally_layout l;
    memset(&l, 0, sizeof l);
    if (te->check == FIT_FIXED)
        l.fixed[0] = te->fixed_size;
    else if (te->check != FIT_NONE &&
             (!te->fit || !gcs_fit_flat(te->fit, GCS_TALLY_MAX_STRINGS, &l.n_strings, l.unit,
                                        l.fixed)))
        return NULL;
    gcs_tally_layout *kept = gcs_arena_alloc(&r->meta_arena, sizeof *kept);
    if (kept)
        *kept = l;
    return kept;
}

static gcs_status on_metadata(void *ctx, const gcs_meta_def *def, gcs_error *err)
{
    gcs_reader *r = ctx;
    type_entry *te = gcs_arena_alloc(&r->meta_arena, sizeof *te);
    gcs_event_type *t = te ? &te->pub : NULL;
    if (!t)
        return GCS_FAIL(err, GCS_ERR_LIMIT, gcs_stream_offset(&r->stream),
                        "metadata exceeds %zu bytes", GCS_MAX_METADATA_BYTES);
    t->metadata_id = def->metadata_id;
    t->provider = def->provider ? def->provider : "";
    t->event_id = def->event_id;
    t->version = def->version;
    t->keywords = def->keywords;
    t->level = def->level;
    t->opcode = def->opcode;
    gcs_names_resolve(t, def, &r->meta_arena);
    if (!t->name)
        return GCS_FAIL(err, GCS_ERR_LIMIT, gcs_stream_offset(&r->stream),
                        "metadata exceeds %zu bytes", GCS_MAX_METADATA_BYTES);
    te->fixed = t->field_count > 0 &&
                gcs_schema_fixed_size(t->fields, t->field_count,
                                      r->have_info ? r->info.pointer_size : 8, &te->fixed_size);
    /* The walker reads pointers of the trace's size: only known sizes. */
    if (!te->fixed && t->field_count > 0 && t->fields && r->have_info)
        te->fit = gcs_fit_compile(t->fields, t->field_count, r->info.pointer_size,
                                  &r->meta_arena);
    if (te->fit)
        te->fit_shape = gcs_fit_string_shape_of(te->fit);
    if (te->fit_shape.strings == 1)
        te->fit_string = te->fit_shape;
    te->check = t->field_count == 0 ? FIT_NONE : te->fixed ? FIT_FIXED : FIT_OTHER;
    te->quick = t->known && te->check != FIT_OTHER;
    te->min_size = te->check == FIT_FIXED ? te->fixed_size : 0;
    if (t->known)
        te->layout = layout_of(r, te);
    r->stats.metadata++;
    return type_insert(r, t, err);
}

static gcs_status on_event_scan(void *ctx, const gcs_raw_event *ev, gcs_error *err);
static inline void scan_count_type(gcs_reader *r, type_entry *te, const uint8_t *payload,
                                   uint32_t size, uint32_t pointer_size, int64_t timestamp);
static void tap_slot(gcs_reader *r, uint32_t id, const type_entry *te);
static bool payload_walk_fits(const type_entry *te, const uint8_t *payload, uint32_t size,
                              uint32_t pointer_size);
static bool payload_fits_slow(const gcs_reader *r, const type_entry *te, const uint8_t *payload,
                              uint32_t size);
static inline type_entry *resolve_type(gcs_reader *r, uint32_t id);

/* Does the caller want events of this type (options.want, asked once)? */
static bool wanted(gcs_reader *r, type_entry *te)
{
    if (te->want == WANT_UNASKED)
        te->want = r->opts.want(r->opts.want_ctx, &te->pub) ? WANT_YES : WANT_NO;
    return te->want == WANT_YES;
}

/* add_event's case with options.stacks: the event's stack id (valid in
 * its container's span) or inline stack becomes the interned stack's. */
static __attribute__((noinline)) gcs_status add_event_with_stack(gcs_reader *r,
                                                                 const type_entry *te,
                                                                 const gcs_raw_event *ev,
                                                                 gcs_error *err)
{
    gcs_raw_event e = *ev;
    if (ev->inline_stack_size) {
        unsigned ps = ev->pointer_size ? ev->pointer_size : r->info.pointer_size;
        e.stack_id = gcs_stack_table_intern(&r->stacks, ev->inline_stack, ev->inline_stack_size,
                                            ps == 4 ? 4 : 8);
        if (e.stack_id == 0 && ev->inline_stack_size >= ps)
            r->stacks.dropped++;
    } else {
        e.stack_id = gcs_stack_table_lookup(&r->stacks, ev->stack_id);
    }
    if (gcs_sorter_add_fast(r->sorter, &e, te->pub.index))
        return GCS_OK;
    return gcs_sorter_add_keyed(r->sorter, &e, te->pub.index, err);
}

/* Sorts an event of type te (bound in file order, as it arrives: the type
 * its metadata id names at that point) with the type's index. */
static inline gcs_status add_event(gcs_reader *r, const type_entry *te, const gcs_raw_event *ev,
                                   gcs_error *err)
{
    if (__builtin_expect(r->opts.stacks, 0) && (ev->stack_id || ev->inline_stack_size))
        return add_event_with_stack(r, te, ev, err);
    if (gcs_sorter_add_fast(r->sorter, ev, te->pub.index))
        return GCS_OK;
    return gcs_sorter_add_keyed(r->sorter, ev, te->pub.index, err);
}

/* What keeps a tapped event from counting as a clean one: its type
 * unknown, or its payload not fitting the schema (count_event's tests,
 * made when it arrives: a tap row keeps only the payload's head). */
enum { TAP_CLEAN = 0, TAP_UNDECODABLE, TAP_UNKNOWN };

static uint8_t tap_flaw(const gcs_reader *r, const type_entry *te, const gcs_raw_event *ev)
{
    if (!te->pub.known)
        return TAP_UNKNOWN;
    bool fits;
    if (ev->pointer_size != 0)
        fits = te->check == FIT_NONE ||
               payload_walk_fits(te, ev->payload, ev->payload_size, ev->pointer_size);
    else if (te->check == FIT_FIXED)
        fits = ev->payload_size >= te->fixed_size;
    else if (te->check == FIT_NONE)
        fits = true;
    else {
        const uint32_t size = ev->payload_size;
        const gcs_cursor c = gcs_cur_make(size ? ev->payload : (const uint8_t *)"", size, 0);
        fits = gcs_cur_string_surely_ends(&c, size, te->fit_string.before, te->fit_string.unit,
                                          te->fit_string.after) ||
               payload_fits_slow(r, te, ev->payload, size);
    }
    return fits ? TAP_CLEAN : TAP_UNDECODABLE;
}

static void tally_take(gcs_reader *r, uint32_t id, const type_entry *te, bool until_only);

/* May the container count this type's rows (tally_take)? Known types of
 * fixed size, or of strings between fixed fields; or of a layout (fixed
 * fields and strings) a container may prove a row has. */
static inline bool container_may_count(const type_entry *te)
{
    return te->quick || (te->pub.known && te->fit_shape.unit != 0) || te->layout;
}

/* Does the container count rows of this metadata id already (or know
 * its layout)? */
static inline bool tally_taken(const gcs_reader *r, uint32_t id)
{
    return id < r->tally.n_slots &&
           (r->tally.slots[id].counted != GCS_TALLY_NO || r->tally.slots[id].layout);
}

/* Is a wanted event before options.from_msec (by the msec delivery
 * would give it)? */
static inline bool before_from(const gcs_reader *r, const gcs_raw_event *ev)
{
    return r->opts.has_from_msec && !(gcs_reader_msec(r, ev->timestamp) >= r->opts.from_msec);
}

/* A wanted event before options.from_msec: counted as a refused type's
 * (on_event_scan_slow). Its type is handed to the container to count only
 * with a tally that stops at the window (count_before_window): else the
 * container would count the later events too. */
static __attribute__((noinline)) gcs_status count_before_from(gcs_reader *r, type_entry *te,
                                                              const gcs_raw_event *ev)
{
    if (ev->has_sequence)
        gcs_sorter_note_sequence_run(r->sorter, ev->capture_tid, ev->sequence, ev->sequence);
    scan_count_type(r, te, ev->payload, ev->payload_size, ev->pointer_size, ev->timestamp);
    if (r->tally.has_until && r->sink.tally && container_may_count(te) &&
        ev->pointer_size == 0 && !tally_taken(r, ev->metadata_id))
        tally_take(r, ev->metadata_id, te, true);
    return GCS_OK;
}

/* An event of a wanted type when options.tap is set: a tapped type's goes
 * to the sorter's lane (with activity ids, rare, as a record: delivery
 * hands it to on_tap all the same). */
static __attribute__((noinline)) gcs_status on_event_tap(gcs_reader *r, type_entry *te,
                                                         const gcs_raw_event *ev, gcs_error *err)
{
    if (te->tap == WANT_UNASKED)
        te->tap = r->opts.tap(r->opts.tap_ctx, &te->pub) ? WANT_YES : WANT_NO;
    if (te->tap == WANT_NO || ev->activity_id || ev->related_activity_id)
        return add_event(r, te, ev, err);
    /* The container may write the type's next rows to the lane itself. */
    if (r->sink.lane && ev->pointer_size == 0)
        tap_slot(r, ev->metadata_id, te);
    return gcs_sorter_add_tap(r->sorter, ev, te, tap_flaw(r, te, ev), err);
}

/* on_event's general case: the type not in the cache, or options.want not
 * asked yet about it. */
static __attribute__((noinline)) gcs_status on_event_slow(gcs_reader *r, const gcs_raw_event *ev,
                                                          gcs_error *err)
{
    type_entry *te = resolve_type(r, ev->metadata_id);
    if (r->opts.want && !wanted(r, te))
        return on_event_scan(r, ev, err); /* counted, not delivered */
    if (before_from(r, ev))
        return count_before_from(r, te, ev);
    r->window_arrived = true;
    if (r->opts.tap)
        return on_event_tap(r, te, ev, err);
    return add_event(r, te, ev, err);
}

/* The usual event: its type cached and wanted. Only tail calls: the
 * callback saves no registers for it. */
static gcs_status on_event(void *ctx, const gcs_raw_event *ev, gcs_error *err)
{
    gcs_reader *r = ctx;
    type_entry *te = (type_entry *)r->type_cache[ev->metadata_id & (TYPE_CACHE_SIZE - 1)];
    if (!te || te->pub.metadata_id != ev->metadata_id)
        return on_event_slow(r, ev, err);
    if (r->opts.want && te->want != WANT_YES)
        return te->want == WANT_NO ? on_event_scan(r, ev, err) /* counted, not delivered */
                                   : on_event_slow(r, ev, err);
    if (__builtin_expect(before_from(r, ev), 0))
        return count_before_from(r, te, ev);
    r->window_arrived = true;
    if (r->opts.tap && te->tap != WANT_NO)
        return on_event_tap(r, te, ev, err);
    return add_event(r, te, ev, err);
}

static gcs_status on_sequence_point(void *ctx, int64_t timestamp, const gcs_seq_entry *entries,
                                    size_t n, gcs_error *err)
{
    gcs_reader *r = ctx;
    r->stats.sequence_points++;
    gcs_sorter_sequence_point(r->sorter, entries, n);
    if (r->opts.stacks)
        gcs_stack_table_reset_span(&r->stacks);
    return GCS_OK;
}

/* Without options.want, the container's counting of the rows before the
 * window ends after a block of events in the window and none before it:
 * each row would then leave the counting loops only to be handed over. A
 * row of a thread that lags still comes to count_before_from, counted
 * exactly. (With a filter the tally stays: it counts the refused types,
 * and the rows of the delivered ones are handed over as they would be
 * without a window.) */
static void end_window_count(gcs_reader *r)
{
    const uint64_t counted = r->counted + r->tally.rows;
    if (r->window_arrived && counted == r->window_counted)
        r->sink.tally = NULL;
    r->window_arrived = false;
    r->window_counted = counted;
}

static void on_block(void *ctx)
{
    gcs_reader *r = ctx;
    r->stats.blocks++;
    if (r->sink.tally && r->tally.has_until && !r->opts.want)
        end_window_count(r);
}

static void on_anomaly(void *ctx, uint64_t offset, const char *reason)
{
    gcs_reader *r = ctx;
    if (r->stats.anomalies++ == 0) {
        r->stats.first_anomaly_offset = offset;
        snprintf(r->stats.first_anomaly, sizeof r->stats.first_anomaly, "%s", reason);
    }
}

static void on_events_lost(void *ctx, uint64_t n)
{
    gcs_reader *r = ctx;
    r->container_lost += n;
}

static void on_thread_end(void *ctx, uint64_t capture_tid, uint32_t last_sequence)
{
    gcs_reader *r = ctx;
    gcs_sorter_thread_end(r->sorter, capture_tid, last_sequence);
}

/* The name of pid given by the container, or NULL. */
static const char *pid_name(gcs_reader *r, uint32_t pid)
{
    if (r->pid_names_hit < r->pid_names_n && r->pid_names[r->pid_names_hit].pid == pid)
        return r->pid_names[r->pid_names_hit].name;
    for (size_t i = 0; i < r->pid_names_n; i++)
        if (r->pid_names[i].pid == pid) {
            r->pid_names_hit = i;
            return r->pid_names[i].name;
        }
    return NULL;
}

static void on_process_name(void *ctx, uint32_t pid, const char *name)
{
    gcs_reader *r = ctx;
    char *copy = strdup(name);
    if (!copy)
        return; /* the events stay unnamed */
    for (size_t i = 0; i < r->pid_names_n; i++)
        if (r->pid_names[i].pid == pid) {
            /* The event delivered last is done with the old one (a name
             * lives until the next event, as the payload). */
            free(r->pid_names[i].name);
            r->pid_names[i].name = copy;
            return;
        }
    if (r->pid_names_n == r->pid_names_cap) {
        size_t cap = r->pid_names_cap ? 2 * r->pid_names_cap : 16;
        struct pid_name *v = realloc(r->pid_names, cap * sizeof *v);
        if (!v) {
            free(copy);
            return;
        }
        r->pid_names = v;
        r->pid_names_cap = cap;
    }
    r->pid_names[r->pid_names_n++] = (struct pid_name){pid, copy};
}

static void on_stack(void *ctx, uint32_t stack_id, const uint8_t *ips, uint32_t size)
{
    gcs_reader *r = ctx;
    r->stats.stacks++;
    if (r->opts.stacks)
        gcs_stack_table_define(&r->stacks, stack_id, ips, size,
                               r->info.pointer_size == 4 ? 4 : 8);
}

bool gcs_reader_stack(const gcs_reader *r, uint32_t stack_id, const uint64_t **ips, size_t *n)
{
    return r->opts.stacks && gcs_stack_table_get(&r->stacks, stack_id, ips, n);
}

static void on_view_moves(void *ctx);

gcs_reader *gcs_reader_new(gcs_source *src, const gcs_reader_options *opts, gcs_error *err)
{
    if (!src) {
        GCS_FAIL(err, GCS_ERR_ARG, 0, "no source");
        return NULL;
    }
    gcs_reader *r = calloc(1, sizeof *r);
    if (!r) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    gcs_stream_init(&r->stream, src);
    gcs_stream_set_on_move(&r->stream, on_view_moves, r);
    gcs_arena_init(&r->meta_arena, GCS_MAX_METADATA_BYTES);
    r->sorter = gcs_sorter_new(opts ? opts->sort_window_bytes : 0);
    if (!r->sorter) {
        gcs_reader_free(r);
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    r->sink.ctx = r;
    r->sink.meta_arena = &r->meta_arena;
    r->sink.trace = on_trace;
    r->sink.metadata = on_metadata;
    r->sink.event = on_event;
    r->sink.sequence_point = on_sequence_point;
    r->sink.block = on_block;
    r->sink.stack = on_stack;
    r->sink.anomaly = on_anomaly;
    r->sink.thread_end = on_thread_end;
    r->sink.process_name = on_process_name;
    r->sink.events_lost = on_events_lost;
    if (opts)
        r->opts = *opts;
    if (!r->opts.on_tap)
        r->opts.tap = NULL; /* nobody to hand tapped events to */
    if (r->opts.want) {
        /* The container may count the refused types' rows itself, and
         * write the tapped types' to the lane. */
        r->sink.tally = &r->tally;
        r->sink.sequence_run = on_sequence_run;
        /* Not with options.from_msec: the container would write a tapped
         * type's rows to the lane past on_event's time test (rows of one
         * thread that come late, before the cut, after one after it). */
        if (r->opts.tap && !r->opts.has_from_msec)
            r->sink.lane = gcs_sorter_tap_lane(r->sorter);
    }
    r->unresolvable.pub.index = NO_TYPE_INDEX;
    r->unresolvable.pub.provider = "";
    r->unresolvable.pub.name = "UnknownMetadata";
    r->state = READER_OPENING;
    return r;
}

void gcs_remove_temporary_files(void)
{
    gcs_ctf_remove_tmp_dirs();
}

void gcs_reader_free(gcs_reader *r)
{
    if (!r)
        return;
    if (r->container)
        r->container->ops->destroy(r->container);
    gcs_sorter_free(r->sorter);
    gcs_stream_free(&r->stream);
    gcs_archive_free(r->archive);
    if (r->has_outer)
        gcs_stream_free(&r->outer);
    gcs_arena_reset(&r->meta_arena);
    free(r->type_slots);
    free(r->types);
    free(r->tally.slots);
    gcs_stack_table_free(&r->stacks);
    for (size_t i = 0; i < r->pid_names_n; i++)
        free(r->pid_names[i].name);
    free(r->pid_names);
    free(r);
}

/* Placeholder type for events whose metadata row never arrived. */
static const gcs_event_type *missing_type(gcs_reader *r, uint32_t id)
{
    gcs_event_type *t = type_find(r, id);
    if (t)
        return t;
    type_entry *te = gcs_arena_alloc(&r->meta_arena, sizeof *te);
    if (!te)
        return NULL;
    t = &te->pub;
    t->metadata_id = id;
    t->provider = "";
    t->name = "UnknownMetadata";
    t->known = false;
    gcs_error ignored;
    if (type_insert(r, t, &ignored) != GCS_OK)
        return NULL;
    return t;
}

/* Does the payload fit its schema, read with pointers of pointer_size? */
static bool payload_walk_fits(const type_entry *te, const uint8_t *payload, uint32_t size,
                              uint32_t pointer_size)
{
    const gcs_event_type *t = &te->pub;
    gcs_payload_info info;
    gcs_error ignored;
    return gcs_payload_walk_fields(t->fields, t->field_count, payload, size, pointer_size, NULL,
                                   NULL, &info, &ignored) == GCS_OK;
}

/* Does the payload fit its schema? The compiled check, or the general
 * walk for what it does not cover. */
static __attribute__((noinline)) bool payload_fits_slow(const gcs_reader *r, const type_entry *te,
                                                        const uint8_t *payload, uint32_t size)
{
    if (te->fit)
        return gcs_fit_check(te->fit, payload, size);
    return payload_walk_fits(te, payload, size, r->info.pointer_size);
}

/* The type of events with this metadata id (a placeholder when its row
 * never arrived). */
static inline type_entry *resolve_type(gcs_reader *r, uint32_t id)
{
    const gcs_event_type **cached = &r->type_cache[id & (TYPE_CACHE_SIZE - 1)];
    const gcs_event_type *t = *cached;
    if (!t || t->metadata_id != id) {
        t = type_find(r, id);
        if (!t)
            t = missing_type(r, id);
        /* missing_type may have inserted (clearing the cache): store after. */
        r->type_cache[id & (TYPE_CACHE_SIZE - 1)] = t;
    }
    return t ? (type_entry *)t : &r->unresolvable;
}

/* The type bound to a sorted event (its key is the type's index). */
static inline type_entry *type_at(gcs_reader *r, uint32_t index)
{
    return index < r->types_n ? (type_entry *)r->types[index] : &r->unresolvable;
}

/* Counts one event: its type's count, and whether it is unknown or does
 * not fit its schema. Delivery and scanning share it, so both count alike.
 * pointer_size: the event's own (0: the trace's, which the type's sizes
 * were computed with); another is rare (a 32-bit process in a 64-bit ETW
 * log) and takes the general walk. This part makes no call: false when the
 * fit is left to count_event_fit. */
static inline bool count_event_quick(gcs_reader *r, type_entry *te, const uint8_t *payload,
                                     uint32_t size, uint32_t pointer_size)
{
    te->pub.count++;
    if (!te->pub.known) {
        r->stats.unknown_events++;
        return true;
    }
    if (__builtin_expect(pointer_size != 0, 0))
        return false;
    if (te->check == FIT_FIXED) {
        r->stats.undecodable_events += size < te->fixed_size;
        return true;
    }
    if (te->check == FIT_NONE)
        return true;
    /* An empty payload may come as NULL (CTF events without fields): no
     * cursor over a null pointer (NULL + 0 is undefined). */
    const gcs_cursor c = gcs_cur_make(size ? payload : (const uint8_t *)"", size, 0);
    return gcs_cur_string_surely_ends(&c, size, te->fit_string.before, te->fit_string.unit,
                                      te->fit_string.after);
}

/* The rest of count_event when count_event_quick could not settle the
 * fit: the compiled check or the walker (another pointer size: always the
 * walker). */
static __attribute__((noinline)) void count_event_fit(gcs_reader *r, const type_entry *te,
                                                      const uint8_t *payload, uint32_t size,
                                                      uint32_t pointer_size)
{
    if (pointer_size != 0)
        r->stats.undecodable_events +=
            te->check != FIT_NONE && !payload_walk_fits(te, payload, size, pointer_size);
    else if (!payload_fits_slow(r, te, payload, size))
        r->stats.undecodable_events++;
}

static inline void count_event(gcs_reader *r, type_entry *te, const uint8_t *payload,
                               uint32_t size, uint32_t pointer_size)
{
    if (!count_event_quick(r, te, payload, size, pointer_size))
        count_event_fit(r, te, payload, size, pointer_size);
}

/* What deliver leaves to a call: the fit count_event_quick could not
 * settle, the process name a container gave. */
static __attribute__((noinline)) gcs_status deliver_rest(gcs_reader *r, const type_entry *te,
                                                         const gcs_sorted_event *se,
                                                         const uint8_t *data, bool counted)
{
    if (!counted)
        count_event_fit(r, te, data, se->payload_size, se->pointer_size);
    if (r->pid_names_n != 0)
        r->current.process_name = pid_name(r, se->pid);
    return GCS_OK;
}

/* Makes the sorted event the current one and counts it. No call in the
 * usual case (deliver_rest otherwise, a tail call). */
static inline gcs_status deliver(gcs_reader *r, const gcs_sorted_event *se, const uint8_t *data)
{
    gcs_event *ev = &r->current;
    type_entry *te = type_at(r, se->key);
    ev->type = &te->pub;
    ev->timestamp = se->timestamp;
    ev->msec = gcs_reader_msec(r, se->timestamp);
    ev->pid = se->pid;
    ev->tid = se->tid;
    ev->capture_tid = se->capture_tid;
    ev->processor = se->processor;
    ev->sequence = se->sequence;
    ev->stack_id = se->stack_id;
    ev->payload = data;
    ev->payload_size = se->payload_size;
    /* Set only when it changes: almost every trace has one pointer size. */
    uint8_t pointer_code = se->pointer_size;
    if (__builtin_expect(pointer_code != r->current_pointer_code, 0)) {
        r->current_pointer_code = pointer_code;
        ev->pointer_size = pointer_code ? pointer_code : r->info.pointer_size;
    }
    if (se->has_activity) {
        memcpy(ev->activity_id, data + se->payload_size, 16);
        memcpy(ev->related_activity_id, data + se->payload_size + 16, 16);
        r->activity_clear = false;
    } else if (!r->activity_clear) {
        memset(ev->activity_id, 0, 16);
        memset(ev->related_activity_id, 0, 16);
        r->activity_clear = true;
    }
    /* The last delivered is the current event (see sync_stats). */
    if (r->delivered++ == 0)
        r->delivered_first = se->timestamp;
    r->tap_last = false;
    bool counted = count_event_quick(r, te, data, se->payload_size, pointer_code);
    if (__builtin_expect(!counted || r->pid_names_n != 0, 0))
        return deliver_rest(r, te, se, data, counted);
    return GCS_OK;
}

/* Counting without delivery (scanned, or refused by options.want): the
 * time span of such events. */
static inline void counted_span(gcs_reader *r, int64_t lo, int64_t hi)
{
    if (r->counted == 0 || lo < r->counted_lo)
        r->counted_lo = lo;
    if (r->counted == 0 || hi > r->counted_hi)
        r->counted_hi = hi;
}

static inline void scan_count_type(gcs_reader *r, type_entry *te, const uint8_t *payload,
                                   uint32_t size, uint32_t pointer_size, int64_t timestamp)
{
    count_event(r, te, payload, size, pointer_size);
    counted_span(r, timestamp, timestamp);
    r->counted++;
}

static inline type_entry *scan_count(gcs_reader *r, uint32_t metadata_id, const uint8_t *payload,
                                     uint32_t size, uint32_t pointer_size, int64_t timestamp)
{
    type_entry *te = resolve_type(r, metadata_id);
    scan_count_type(r, te, payload, size, pointer_size, timestamp);
    return te;
}

/* on_event_scan's general case: the type not cached, another thread than
 * the last one, or a quick type the container may count from now on. */
static __attribute__((noinline)) gcs_status on_event_scan_slow(gcs_reader *r,
                                                               const gcs_raw_event *ev)
{
    if (ev->has_sequence)
        gcs_sorter_note_sequence_run(r->sorter, ev->capture_tid, ev->sequence, ev->sequence);
    type_entry *te = scan_count(r, ev->metadata_id, ev->payload, ev->payload_size,
                                ev->pointer_size, ev->timestamp);
    /* Later rows of a quick type the container may count itself (a
     * placeholder or the unresolvable type is never quick; the container
     * checks sizes made with the trace's pointer size). */
    if (container_may_count(te) && r->sink.tally && ev->pointer_size == 0 &&
        !tally_taken(r, ev->metadata_id))
        tally_take(r, ev->metadata_id, te, false);
    return GCS_OK;
}

/* The fit of a counted event that count_event_quick could not settle. */
static __attribute__((noinline)) gcs_status scan_fit_rest(gcs_reader *r, const type_entry *te,
                                                          const gcs_raw_event *ev)
{
    count_event_fit(r, te, ev->payload, ev->payload_size, ev->pointer_size);
    return GCS_OK;
}

/* Counts an event without delivering it (scanned, or refused by
 * options.want). The usual one, its type cached and its thread the last
 * one, with no call (the rest in on_event_scan_slow, scan_fit_rest). */
static gcs_status on_event_scan(void *ctx, const gcs_raw_event *ev, gcs_error *err)
{
    gcs_reader *r = ctx;
    type_entry *te = (type_entry *)r->type_cache[ev->metadata_id & (TYPE_CACHE_SIZE - 1)];
    if (!te || te->pub.metadata_id != ev->metadata_id ||
        (container_may_count(te) && r->sink.tally && ev->pointer_size == 0 &&
         !tally_taken(r, ev->metadata_id)))
        return on_event_scan_slow(r, ev);
    if (ev->has_sequence &&
        !gcs_sorter_note_sequence_quick(r->sorter, ev->capture_tid, ev->sequence, ev->sequence))
        return on_event_scan_slow(r, ev); /* nothing done yet */
    counted_span(r, ev->timestamp, ev->timestamp);
    r->counted++;
    if (!count_event_quick(r, te, ev->payload, ev->payload_size, ev->pointer_size))
        return scan_fit_rest(r, te, ev);
    return GCS_OK;
}

static void sync_stats(gcs_reader *r)
{
    fold_tally(r);
    r->stats.events = r->delivered + r->counted;
    r->stats.skipped_events = r->counted;
    if (r->delivered > 0) {
        r->stats.first_timestamp = r->delivered_first;
        r->stats.last_timestamp = r->tap_last ? r->tap_last_timestamp : r->current.timestamp;
    }
    if (r->counted > 0) {
        if (r->delivered == 0 || r->counted_lo < r->stats.first_timestamp)
            r->stats.first_timestamp = r->counted_lo;
        if (r->delivered == 0 || r->counted_hi > r->stats.last_timestamp)
            r->stats.last_timestamp = r->counted_hi;
    }
    r->stats.bytes_read = gcs_stream_offset(&r->stream);
    r->stats.lost_events = gcs_sorter_lost_events(r->sorter) + r->container_lost;
    r->stats.sort_overflows = gcs_sorter_overflows(r->sorter);
    r->stats.stacks_distinct = r->stacks.n;
    r->stats.stacks_dropped = r->stacks.dropped;
}

/* The step's payloads that lie in the stream's view stay there until the
 * view moves (on_view_moves); others are copied now. */
static void end_step(gcs_reader *r)
{
    const uint8_t *lo, *hi;
    gcs_stream_window(&r->stream, &lo, &hi);
    gcs_sorter_end_step_deferred(r->sorter, lo, hi);
}

/* The stream is about to unmap its window or move its buffer. */
static void on_view_moves(void *ctx)
{
    gcs_reader *r = ctx;
    if (r->sorter)
        gcs_sorter_store_deferred(r->sorter);
}

static gcs_status reader_step(gcs_reader *r, gcs_error *err);
static gcs_status step_until_released(gcs_reader *r, gcs_error *err);

/* Hands a tapped event to options.on_tap, counted as delivered (its
 * flaw found when it arrived, or now from a whole payload). */
static void hand_tap(gcs_reader *r, type_entry *te, const gcs_tap_event *ev, uint8_t flaw)
{
    te->pub.count++;
    r->stats.unknown_events += flaw == TAP_UNKNOWN;
    r->stats.undecodable_events += flaw == TAP_UNDECODABLE;
    if (r->delivered++ == 0)
        r->delivered_first = ev->timestamp;
    r->tap_last = true;
    r->tap_last_timestamp = ev->timestamp;
    r->opts.on_tap(r->opts.tap_ctx, ev);
}

/* The released rows of the sorter's lane that come before its next
 * released event (at least one: the caller saw it), handed out in one
 * loop: the counts that concern them all are made once at its end. */
/* Milliseconds from the trace start (gcs_reader_msec). Differences of
 * 64-bit tick counts wrap; the signed result is the distance from the
 * trace start. Multiplied by 1000 then divided by the frequency, as
 * TraceEvent's QPCTimeToRelMSec: multiplying by a precomputed
 * 1000/frequency differs in the last bit, which shows in the 9th digit of
 * a rate over a sub-microsecond interval. */
static inline double msec_of(int64_t timestamp, int64_t start_ticks, double ticks_per_sec)
{
    if (ticks_per_sec == 0)
        return 0.0;
    return (double)(int64_t)((uint64_t)timestamp - (uint64_t)start_ticks) * 1000.0 / ticks_per_sec;
}

static __attribute__((noinline)) void feed_tap_rows(gcs_reader *r)
{
    const size_t *idx;
    const size_t n = gcs_sorter_take_taps(r->sorter, &idx);
    if (n == 0)
        return;
    /* Held in locals across the calls out: on_tap cannot reach the
     * reader, so nothing here changes under it. */
    void (*const on_tap)(void *, const gcs_tap_event *) = r->opts.on_tap;
    void *const ctx = r->opts.tap_ctx;
    const gcs_tap_row *const rows = gcs_sorter_tap_lane(r->sorter)->rows;
    const uint32_t trace_pointer_size = r->info.pointer_size;
    const int64_t start_ticks = (int64_t)r->info.start_ticks;
    const double ticks_per_sec = r->ticks_per_sec;
    /* (the names a container gave, as deliver_rest looks them up: none
     * but in an LTTng trace) */
    const bool named = r->pid_names_n != 0;
    uint64_t unknown = 0, undecodable = 0;
    for (size_t i = 0; i < n; i++) {
        const gcs_tap_row *row = &rows[idx[i]];
        type_entry *te = (type_entry *)row->type;
        te->pub.count++;
        if (__builtin_expect(row->mark != 0, 0)) {
            unknown += row->mark == TAP_UNKNOWN;
            undecodable += row->mark == TAP_UNDECODABLE;
        }
        const gcs_tap_event ev = {&te->pub, row->timestamp,
                                  msec_of(row->timestamp, start_ticks, ticks_per_sec),
                                  row->pid, row->tid, row->head,
                                  row->head_size, row->payload_size,
                                  row->pointer_size ? row->pointer_size : trace_pointer_size,
                                  named ? pid_name(r, row->pid) : NULL};
        on_tap(ctx, &ev);
    }
    r->stats.unknown_events += unknown;
    r->stats.undecodable_events += undecodable;
    if (r->delivered == 0)
        r->delivered_first = rows[idx[0]].timestamp;
    r->delivered += n;
    r->tap_last = true;
    r->tap_last_timestamp = rows[idx[n - 1]].timestamp;
}

/* A tapped event that was sorted as a record (it had activity ids). */
static __attribute__((noinline)) void feed_tap_record(gcs_reader *r, type_entry *te,
                                                      const gcs_sorted_event *se,
                                                      const uint8_t *data)
{
    const uint32_t size = se->payload_size;
    const gcs_raw_event raw = {.payload = data, .payload_size = size,
                               .pointer_size = se->pointer_size};
    const gcs_tap_event ev = {&te->pub, se->timestamp, gcs_reader_msec(r, se->timestamp),
                              se->pid, se->tid, data,
                              size < GCS_TAP_HEAD_BYTES ? size : GCS_TAP_HEAD_BYTES, size,
                              se->pointer_size ? se->pointer_size : r->info.pointer_size,
                              r->pid_names_n != 0 ? pid_name(r, se->pid) : NULL};
    hand_tap(r, te, &ev, tap_flaw(r, te, &raw));
}

/* The released tap rows that come before the next released event. */
static inline void feed_taps(gcs_reader *r)
{
    if (__builtin_expect(gcs_sorter_tap_ready(r->sorter), 0))
        feed_tap_rows(r);
}

/* gcs_reader_next when nothing released is waiting, or a tapped event
 * came out as a record: steps the container until an event is released,
 * the input waits, ends or fails; tapped events go to on_tap on the way. */
static __attribute__((noinline)) gcs_status next_after_step(gcs_reader *r, const gcs_event **out,
                                                            gcs_error *err)
{
    for (;;) {
        feed_taps(r);
        const gcs_sorted_event *se;
        const uint8_t *data;
        if (gcs_sorter_pop(r->sorter, &se, &data)) {
            type_entry *te = type_at(r, se->key);
            if (te->tap == WANT_YES) {
                feed_tap_record(r, te, se, data);
                continue;
            }
            *out = &r->current;
            return deliver(r, se, data);
        }
        gcs_status st = reader_step(r, err);
        if (st != GCS_OK) {
            *out = NULL;
            return st;
        }
    }
}

gcs_status gcs_reader_next(gcs_reader *r, const gcs_event **out, gcs_error *err)
{
    feed_taps(r);
    const gcs_sorted_event *se;
    const uint8_t *data;
    if (__builtin_expect(!gcs_sorter_pop(r->sorter, &se, &data), 0))
        return next_after_step(r, out, err);
    if (__builtin_expect(type_at(r, se->key)->tap == WANT_YES, 0)) {
        feed_tap_record(r, type_at(r, se->key), se, data);
        return next_after_step(r, out, err);
    }
    *out = &r->current;
    return deliver(r, se, data);
}

/* Part of an LTTng CTF trace (perfcollect's .trace.zip): a metadata file
 * (TSDL text, or metadata packets' magic 0x75D11D57) or a stream file
 * (packet magic 0xC1FC1FC1), in either byte order. */
static bool is_ctf_part(const uint8_t *p, size_t n)
{
    static const uint8_t magics[4][4] = {{0x57, 0x1d, 0xd1, 0x75}, {0x75, 0xd1, 0x1d, 0x57},
                                         {0xc1, 0x1f, 0xfc, 0xc1}, {0xc1, 0xfc, 0x1f, 0xc1}};
    if (n >= 6 && !memcmp(p, "/* CTF", 6))
        return true;
    for (size_t i = 0; n >= 4 && i < 4; i++)
        if (!memcmp(p, magics[i], 4))
            return true;
    return false;
}

static gcs_member_class classify_member(const char *name, const uint8_t *p, size_t n)
{
    (void)name;
    if (gcs_container_sniff(p, n) != GCS_FORMAT_UNKNOWN)
        return GCS_MEMBER_TRACE;
    return is_ctf_part(p, n) ? GCS_MEMBER_CTF : GCS_MEMBER_OTHER;
}

/* The input starts with an archive's or a compression's magic: the stream
 * becomes the chosen member's, the archive reading from outer. */
static gcs_status open_archive(gcs_reader *r, gcs_error *e)
{
    r->outer = r->stream;
    gcs_stream_set_on_move(&r->outer, NULL, NULL); /* payloads come from the member's stream */
    r->has_outer = true;
    r->archive = gcs_archive_open(&r->outer, r->opts.archive_member, classify_member, e);
    if (!r->archive) {
        /* No member was read: an empty stream, so bytes_read says 0
         * (not how far libarchive got, which depends on the medium). */
        gcs_stream_init_ended(&r->stream, r->outer.src);
        return e->status;
    }
    gcs_stream_init(&r->stream, gcs_archive_source(r->archive));
    gcs_stream_set_on_move(&r->stream, on_view_moves, r);
    return GCS_OK;
}

/* An error met while reading an archive's member: the archive's own (CRC,
 * truncation: the stream saw only "read failed") replaces it; a
 * container's error gets the member's name, since its offset is within
 * the member. */
static void blame_archive(const gcs_reader *r, gcs_error *e)
{
    if (!r->archive)
        return;
    const gcs_error *ae = gcs_archive_error(r->archive);
    if (ae) {
        *e = *ae;
        return;
    }
    size_t len = strlen(e->reason);
    const char *member = gcs_archive_member(r->archive);
    const char *kind = gcs_archive_kind_name(gcs_archive_kind_of(r->archive));
    if (member[0])
        snprintf(e->reason + len, sizeof e->reason - len, " (in %s member %s)", kind, member);
    else
        snprintf(e->reason + len, sizeof e->reason - len, " (in %s data)", kind);
}

bool gcs_reader_archive(const gcs_reader *r, const char **kind, const char **member)
{
    if (!r->archive)
        return false;
    if (kind)
        *kind = gcs_archive_kind_name(gcs_archive_kind_of(r->archive));
    if (member)
        *member = gcs_archive_member(r->archive);
    return true;
}

/* READER_OPENING: sniffs the container (first, an archive around it).
 * GCS_AGAIN, or GCS_OK with the state moved on (to READING, or to
 * DRAINING with the error kept). */
static gcs_status open_container(gcs_reader *r)
{
    gcs_error e;
    gcs_error_clear(&e);
    gcs_status st = GCS_OK;
    if (!r->archive_checked) {
        st = gcs_stream_need(&r->stream, GCS_ARCHIVE_MAGIC_BYTES, &e);
        if (st == GCS_AGAIN)
            return GCS_AGAIN;
        /* Errors and short inputs: the container says them. */
        r->archive_checked = true;
        st = GCS_OK;
        const uint8_t *p = gcs_stream_peek(&r->stream);
        size_t n = gcs_stream_avail(&r->stream);
        if (gcs_archive_sniff(p, n) &&
            !gcs_container_reads_archive(gcs_source_path(r->stream.src), p, n))
            st = open_archive(r, &e);
    }
    if (st >= 0)
        st = gcs_container_open(&r->stream, &r->sink, &r->container, &e);
    if (st == GCS_AGAIN)
        return GCS_AGAIN;
    if (st < 0) {
        blame_archive(r, &e);
        r->final_error = e;
        if (r->final_error.status >= 0)
            r->final_error.status = st;
        r->state = READER_DRAINING;
        return GCS_OK;
    }
    r->state = READER_READING;
    return GCS_OK;
}

/* The input ended (GCS_END) or failed: keep why, deliver what is left. */
static void input_finished(gcs_reader *r, gcs_status st, const gcs_error *e)
{
    if (st == GCS_END) {
        r->final_error.status = GCS_END;
        /* The trace ended: the rest of its member is checked (zip CRC). */
        if (r->archive && gcs_archive_finish(r->archive) < 0)
            r->final_error = *gcs_archive_error(r->archive);
    } else {
        r->final_error = *e;
        if (r->final_error.status >= 0)
            r->final_error.status = st;
        blame_archive(r, &r->final_error);
    }
    r->state = READER_DRAINING;
}

/* Steps the container until an event is released (GCS_OK) or the input
 * says AGAIN, ends, or fails. Kept apart so the fast path stays small. */
static gcs_status __attribute__((noinline)) reader_step(gcs_reader *r, gcs_error *err)
{
    if (r->scanning)
        return GCS_FAIL(err, GCS_ERR_ARG, gcs_stream_offset(&r->stream),
                        "the reader is scanning (gcs_reader_scan): it delivers no events");
    return step_until_released(r, err);
}

/* While scanning the sorter stays empty: every step below then only
 * counts, and GCS_OK is never returned. */
static gcs_status step_until_released(gcs_reader *r, gcs_error *err)
{
    for (;;) {
        if (gcs_sorter_ready(r->sorter))
            return GCS_OK;
        switch (r->state) {
        case READER_DONE:
            sync_stats(r);
            if (err)
                *err = r->final_error;
            return r->final_error.status;
        case READER_DRAINING:
            gcs_sorter_flush(r->sorter);
            if (!gcs_sorter_ready(r->sorter))
                r->state = READER_DONE;
            continue;
        case READER_OPENING:
            if (open_container(r) == GCS_AGAIN)
                return GCS_AGAIN;
            continue;
        case READER_READING: {
            /* Cleared field by field, not the whole reason: containers
             * that report an event a step (CTF) step millions of times. */
            gcs_error e;
            e.status = GCS_OK;
            e.offset = 0;
            e.reason[0] = '\0';
            e.src_file = NULL;
            e.src_line = 0;
            gcs_status st = r->container->ops->step(r->container, &e);
            if (st == GCS_OK) {
                gcs_sorter_settle(r->sorter, false);
                end_step(r);
                continue;
            }
            if (st == GCS_AGAIN) {
                /* Live source waiting: release what the watermark allows. */
                gcs_sorter_settle(r->sorter, true);
                if (gcs_sorter_ready(r->sorter))
                    continue;
                sync_stats(r);
                return GCS_AGAIN;
            }
            /* Nothing may keep pointing into the unit once input moves on
             * (an error leaves the unit in place: draining is safe too). */
            end_step(r);
            input_finished(r, st, &e);
            continue;
        }
        }
    }
}

/* Lets the container count the rows of a quick type, or of a type of
 * strings between fixed fields (GCS_TALLY_ZERO_TAIL, GCS_TALLY_STRINGS),
 * from now on; and gives it the type's layout, if any (a container that
 * builds payloads may count the rows it proves of that layout). */
/* The tally slot of metadata id `id`, the slots grown to hold it (NULL:
 * no slot for it, or no memory: its rows then come one by one). */
static gcs_tally_slot *slot_for(gcs_reader *r, uint32_t id)
{
    if (id == 0 || id >= GCS_MAX_TALLY_SLOTS)
        return NULL;
    gcs_tally *t = &r->tally;
    if (id >= t->n_slots) {
        size_t n = t->n_slots ? t->n_slots : 128; /* the container's fast path wants 128 */
        while (n <= id)
            n *= 2;
        gcs_tally_slot *grown = realloc(t->slots, n * sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + t->n_slots, 0, (n - t->n_slots) * sizeof *grown);
        t->slots = grown;
        t->n_slots = n;
    }
    return &t->slots[id];
}

/* Lets the container write the rows of a tapped type to the lane from now
 * on, those that surely fit (gcs_tap_fits: of fixed size, or of one
 * string that surely ends); the others still come to on_event. */
static void tap_slot(gcs_reader *r, uint32_t id, const type_entry *te)
{
    if (!te->pub.known || (te->check == FIT_OTHER && te->fit_string.unit == 0))
        return;
    gcs_tally_slot *slot = slot_for(r, id);
    if (!slot || slot->counted == GCS_TALLY_TAP)
        return;
    slot->counted = GCS_TALLY_TAP;
    slot->tap_type = te;
    slot->layout = NULL; /* never counted */
    slot->min_size = te->check == FIT_FIXED ? te->fixed_size : 0;
    slot->zero_unit = te->check == FIT_OTHER ? (uint8_t)te->fit_string.unit : 0;
    slot->zero_before = te->fit_string.before;
    slot->zero_after = te->fit_string.after;
}

/* until_only: the type's rows are counted only before the window's start
 * (gcs_tally.has_until), a type delivered from there on. */
static void tally_take(gcs_reader *r, uint32_t id, const type_entry *te, bool until_only)
{
    gcs_tally_slot *slot = slot_for(r, id);
    if (!slot)
        return; /* counted one by one instead */
    slot->until_only = until_only;
    slot->min_size = te->min_size;
    slot->layout = te->layout;
    if (te->quick) {
        slot->counted = GCS_TALLY_PLAIN;
        return;
    }
    if (te->fit_shape.unit == 0)
        return; /* only the layout (GCS_TALLY_NO): see gcs_tally_slot */
    /* Strings between fixed fields: the container counts the rows whose
     * strings surely end in the payload (the inline test of count_event);
     * the others come here, to the whole check. */
    slot->counted = te->fit_shape.strings > 1 ? GCS_TALLY_STRINGS : GCS_TALLY_ZERO_TAIL;
    slot->zero_unit = (uint8_t)te->fit_shape.unit;
    slot->zero_before = te->fit_shape.before;
    slot->zero_after = te->fit_shape.after;
    slot->zero_strings = (uint8_t)te->fit_shape.strings; /* at most GCS_FIT_MAX_SHAPE_STRINGS */
}

/* Moves what the container counted into the types and the stats. */
static void fold_tally(gcs_reader *r)
{
    gcs_tally *t = &r->tally;
    if (t->rows == 0)
        return;
    for (size_t id = 0; id < t->n_slots; id++) {
        if (!t->slots[id].count)
            continue;
        gcs_event_type *type = type_find(r, (uint32_t)id);
        assert(type); /* a slot is counted only after its type was found */
        type->count += t->slots[id].count;
        t->slots[id].count = 0;
    }
    r->stats.undecodable_events += t->short_rows;
    counted_span(r, t->first_timestamp, t->last_timestamp);
    r->counted += t->rows;
    t->rows = t->short_rows = 0;
}

static void on_sequence_run(void *ctx, uint64_t capture_tid, uint32_t first, uint32_t last)
{
    gcs_reader *r = ctx;
    gcs_sorter_note_sequence_run(r->sorter, capture_tid, first, last);
}

/* Starts scanning: events gcs_reader_next had buffered are counted, and
 * the container's events go to the counter instead of the sorter. */
static void start_scanning(gcs_reader *r)
{
    sync_stats(r);
    const gcs_sorted_event *se;
    const uint8_t *data;
    const gcs_tap_row *row;
    for (;;) {
        for (;;) {
            if (gcs_sorter_pop_tap(r->sorter, &row)) {
                /* Its fit was settled when it arrived. */
                type_entry *te = (type_entry *)row->type;
                te->pub.count++;
                r->stats.unknown_events += row->mark == TAP_UNKNOWN;
                r->stats.undecodable_events += row->mark == TAP_UNDECODABLE;
                counted_span(r, row->timestamp, row->timestamp);
                r->counted++;
            } else if (gcs_sorter_pop(r->sorter, &se, &data)) {
                scan_count_type(r, type_at(r, se->key), data, se->payload_size, se->pointer_size,
                                se->timestamp);
            } else {
                break;
            }
        }
        if (gcs_sorter_pending(r->sorter) == 0)
            break;
        gcs_sorter_flush(r->sorter);
    }
    r->scanning = true;
    r->tally.has_until = false; /* every row counted from now on */
    /* Tapped types are counted as any other from now on. */
    r->sink.lane = NULL;
    for (size_t i = 0; i < r->tally.n_slots; i++)
        if (r->tally.slots[i].counted == GCS_TALLY_TAP)
            r->tally.slots[i].counted = GCS_TALLY_NO;
    r->sink.event = on_event_scan;
    r->sink.tally = &r->tally;
    r->sink.sequence_run = on_sequence_run;
}

gcs_status gcs_reader_scan(gcs_reader *r, gcs_error *err)
{
    if (!r->scanning)
        start_scanning(r);
    return step_until_released(r, err);
}

void gcs_reader_release_pending(gcs_reader *r)
{
    /* Only meaningful between steps, with nothing released waiting. */
    if (r->state != READER_READING || gcs_sorter_ready(r->sorter) ||
        gcs_sorter_pending(r->sorter) == 0)
        return;
    gcs_sorter_flush(r->sorter);
    r->stats.idle_releases++;
}

double gcs_reader_msec(const gcs_reader *r, int64_t timestamp)
{
    return msec_of(timestamp, (int64_t)r->info.start_ticks, r->ticks_per_sec);
}

const gcs_trace_info *gcs_reader_info(const gcs_reader *r)
{
    return r->have_info ? &r->info : NULL;
}

const gcs_reader_stats *gcs_reader_get_stats(const gcs_reader *r)
{
    gcs_reader *m = (gcs_reader *)r;
    sync_stats(m);
    return &r->stats;
}

const gcs_event_type *gcs_reader_event_type(const gcs_reader *r, uint32_t index)
{
    fold_tally((gcs_reader *)r); /* counts made by the container */
    return index < r->types_n ? r->types[index] : NULL;
}
