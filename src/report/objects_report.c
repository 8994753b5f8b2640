/*
 * report/objects_report.c - writes a finished object analysis as a table,
 * JSON or CSV (gcs_objects_report). Output is deterministic: rows in the
 * analysis' order or sorted here by fixed keys, floats with fixed
 * decimals, no pointers beyond type ids (which come from the trace).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "gcscope/objects.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/format_fixed.h"

typedef const gcs_object_type_stats *row;

/* ---- views ----------------------------------------------------------------- */

static int cmp_survivors(const void *pa, const void *pb)
{
    row a = *(const row *)pa, b = *(const row *)pb;
    if (a->alive_at_end_bytes != b->alive_at_end_bytes)
        return a->alive_at_end_bytes > b->alive_at_end_bytes ? -1 : 1;
    if (a->alive_at_end_estimated_bytes != b->alive_at_end_estimated_bytes)
        return a->alive_at_end_estimated_bytes > b->alive_at_end_estimated_bytes ? -1 : 1;
    if (a->alive_at_end != b->alive_at_end)
        return a->alive_at_end > b->alive_at_end ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->type_id > b->type_id) - (a->type_id < b->type_id);
}

static int cmp_gen2_deaths(const void *pa, const void *pb)
{
    row a = *(const row *)pa, b = *(const row *)pb;
    if (a->died_gen2_bytes != b->died_gen2_bytes)
        return a->died_gen2_bytes > b->died_gen2_bytes ? -1 : 1;
    if (a->died_gen2 != b->died_gen2)
        return a->died_gen2 > b->died_gen2 ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->type_id > b->type_id) - (a->type_id < b->type_id);
}

/* Rows of the analysis that pass `keep`, sorted by cmp (NULL: as is). */
static row *view(const gcs_objects *a, bool (*keep)(row), int (*cmp)(const void *, const void *),
                 size_t *count)
{
    size_t n = gcs_objects_type_count(a);
    row *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        row r = gcs_objects_type(a, i);
        if (!keep || keep(r))
            rows[k++] = r;
    }
    if (cmp)
        qsort(rows, k, sizeof *rows, cmp);
    *count = k;
    return rows;
}

/* The rows a list shows: at most limit (> 0) of its n. */
static size_t shown(size_t n, size_t limit)
{
    return limit && n > limit ? limit : n;
}

static bool time_filtered(const gcs_objects_summary *s)
{
    return s->has_from || s->has_to;
}

/* "from 100.000 ms to 200.000 ms" (what the time range asks). */
static const char *range_text(const gcs_objects_summary *s, char *buf, size_t cap)
{
    char a[40], b[40];
    snprintf(buf, cap, "%s%s%s%s%s%s", s->has_from ? "from " : "",
             s->has_from ? gcs_format_fixed(a, sizeof a, s->from_ms, 3) : "",
             s->has_from ? " ms" : "", s->has_from && s->has_to ? " " : "",
             s->has_to ? "to " : "", s->has_to ? gcs_format_fixed(b, sizeof b, s->to_ms, 3) : "");
    if (s->has_to)
        snprintf(buf + strlen(buf), cap - strlen(buf), " ms");
    return buf;
}

static bool has_survivors(row r) { return r->alive_at_end > 0; }
static bool has_gen2_deaths(row r) { return r->died_gen2 > 0; }

/* Display name: the type name, or its id when the trace did not name it. */
static const char *display_name(row r, char *buf, size_t cap)
{
    if (r->name && *r->name)
        return r->name;
    if (r->type_id)
        snprintf(buf, cap, "(type 0x%" PRIx64 ")", r->type_id);
    else
        snprintf(buf, cap, "(type unknown)");
    return buf;
}

/* ---- byte sums that may be unknown --------------------------------------------- */

/* A byte sum over `items` of which `without` gave no bytes: the sum, "-"
 * when it is unknown, the sum and "+" when it is a lower bound. */
static const char *bytes_text(uint64_t sum, uint64_t items, uint64_t without, char *buf,
                              size_t cap)
{
    switch (gcs_objects_bytes_known(items, without)) {
    case GCS_BYTES_UNKNOWN: snprintf(buf, cap, "-"); break;
    case GCS_BYTES_PARTIAL: snprintf(buf, cap, "%" PRIu64 "+", sum); break;
    default: snprintf(buf, cap, "%" PRIu64, sum); break;
    }
    return buf;
}

/* JSON and CSV: the sum, or `unknown` (null, empty) when no item gave
 * bytes; a lower bound is told by the count of items without bytes
 * written beside it. Estimates pass (1, !known, ...): all or nothing. */
static void write_bytes(FILE *f, uint64_t sum, uint64_t items, uint64_t without,
                        const char *unknown)
{
    if (gcs_objects_bytes_known(items, without) == GCS_BYTES_UNKNOWN)
        fputs(unknown, f);
    else
        fprintf(f, "%" PRIu64, sum);
}

/* A type id; 0 (the trace named no type: AllocationTick V0/V1) is
 * unknown: `unknown` (null, empty). */
static void write_type_id(FILE *f, uint64_t type_id, const char *unknown)
{
    if (type_id)
        fprintf(f, "%" PRIu64, type_id);
    else
        fputs(unknown, f);
}

/* ---- problems ---------------------------------------------------------------- */

typedef struct counter {
    const char *name;
    uint64_t value;
} counter;

/* The counters worth reporting, in a fixed order. */
static size_t counters(const gcs_objects_summary *s, counter *out)
{
    const gcs_objtrack_stats *t = &s->tracker;
    counter c[] = {
        {"events_used", s->events_used},
        {"allocation_ticks", s->allocation_ticks},
        {"ticks_without_address", s->ticks_without_address},
        {"ticks_with_address", s->ticks_with_address},
        {"sampled_allocations", s->sampled_allocations},
        {"allocations_sampled", s->allocations_sampled},
        {"bulk_type_entries", s->bulk_type_entries},
        {"gcs", s->gcs},
        {"gcs_with_ranges", s->gcs_with_ranges},
        {"gcs_without_ranges", s->gcs_without_ranges},
        {"background_gcs", s->background_gcs},
        {"background_gcs_with_ranges", s->background_gcs_with_ranges},
        {"gcs_without_generation_ranges", s->gcs_without_generation_ranges},
        {"gcs_without_depth", s->gcs_without_depth},
        {"gc_end_without_start", s->gc_end_without_start},
        {"nested_gc_starts", s->nested_gc_starts},
        {"range_events", s->range_events},
        {"range_events_outside_gc", s->range_events_outside_gc},
        {"range_index_gaps", s->range_index_gaps},
        {"generation_range_events", s->generation_range_events},
        {"pin_events", s->pin_events},
        {"pins_of_tracked", s->pins_of_tracked},
        {"short_payloads", s->short_payloads},
        {"lifetimes_over_limit", s->lifetimes_over_limit},
        {"samples_without_size", s->samples_without_size},
        {"bad_allocation_amounts", s->bad_allocation_amounts},
        {"allocation_amounts_clamped", s->allocation_amounts_clamped},
        {"byte_sums_saturated", s->byte_sums_saturated},
        {"types_without_name", s->types_without_name},
        {"types_named_from_symbols", s->types_named_from_symbols},
        {"null_type_names", s->null_type_names},
        {"objects_added", t->objects_added},
        {"objects_tracked_at_end", t->objects_tracked},
        {"duplicate_adds", t->duplicate_adds},
        {"objects_over_limit", t->objects_over_limit},
        {"deaths_in_gc", t->deaths[GCS_DEATH_GC]},
        {"deaths_unseen", t->deaths[GCS_DEATH_UNSEEN]},
        {"deaths_collision", t->deaths[GCS_DEATH_COLLISION]},
        {"deaths_incomplete", t->deaths[GCS_DEATH_INCOMPLETE]},
        {"objects_survived", t->objects_survived},
        {"objects_moved", t->objects_moved},
        {"moved_ranges", t->moved_ranges},
        {"surviving_ranges", t->surviving_ranges},
        {"empty_ranges", t->empty_ranges},
        {"wrapping_ranges", t->wrapping_ranges},
        {"overlapping_ranges", t->overlapping_ranges},
        {"ranges_covering_nothing", t->ranges_covering_nothing},
        {"ranges_outside_gc", t->ranges_outside_gc},
        {"ranges_over_limit", t->ranges_over_limit},
        {"uncondemned_in_range", t->uncondemned_in_range},
        {"address_collisions", t->address_collisions},
        {"resorts", t->resorts},
        {"generation_layouts", t->generation_layouts},
        {"generation_overlaps", t->generation_overlaps},
        {"objects_outside_generation_ranges", t->objects_outside_generation_ranges},
        {"generation_changes_by_layout", t->generation_changes_by_layout},
    };
    size_t n = sizeof c / sizeof c[0];
    memcpy(out, c, sizeof c);
    return n;
}
#define MAX_COUNTERS 64

/* ---- NativeAOT type names ------------------------------------------------------ */

static const char *base_from_text(gcs_image_base_from from)
{
    return from == GCS_IMAGE_BASE_FROM_MODULE_EVENT ? "from the module events"
           : from == GCS_IMAGE_BASE_FROM_TYPE_IDS   ? "inferred from the type ids"
                                                    : "unknown";
}

/* What the symbols did, or, for a NativeAOT trace without them (a native
 * image in the module events, or type names NULL), how to name its types.
 * Nothing for a trace of another runtime. */
static void symbols_note(FILE *f, const gcs_objects_summary *s, const gcs_objects_symbols_info *si)
{
    if (si->used && si->build_id_mismatch) {
        fprintf(f, "note: the symbols are of another build (build ID %s; the trace's %s): "
                   "no type named from them\n", si->file_build_id, si->trace_build_id);
    } else if (si->used && s->types_named_from_symbols) {
        fprintf(f, "note: %" PRIu64 " of the %" PRIu64 " types the trace left unnamed named from "
                   "the symbols (image at 0x%" PRIx64 ", %s%s)\n",
                s->types_named_from_symbols, s->types_without_name, si->image_base,
                base_from_text(si->base_from),
                si->trace_build_id[0] && si->file_build_id[0] ? "; build ID the same" : "");
    } else if (si->used && s->types_without_name) {
        fprintf(f, "note: the symbols name none of the %" PRIu64 " types the trace left unnamed "
                   "(%s)\n", s->types_without_name,
                si->base_from == GCS_IMAGE_BASE_UNKNOWN
                    ? "no module event, and the type ids agree on no load address"
                    : "no type symbol at their offsets");
    } else if (!si->used && s->types_without_name && (si->image_base || s->null_type_names)) {
        fprintf(f, "note: %" PRIu64 " types have no name in the trace (a NativeAOT application "
                   "writes none): --symbols %s.dbg names them from the executable's symbols%s\n",
                s->types_without_name, si->image_path[0] ? si->image_path : "APP",
                si->image_path[0] ? "" : " (APP: the application's executable)");
    }
}

static void symbols_json(FILE *f, const gcs_objects_summary *s, const gcs_objects_symbols_info *si);

/* ---- table --------------------------------------------------------------------- */

/* The Type column of the default table: with the other default columns the
 * widest table is 159 columns. */
enum { TYPE_COLUMNS = 52, CELL = 32 };

/* Display columns of UTF-8 text: every byte but continuation bytes. */
static size_t text_columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Byte offset of the column-th character of s (or its end). */
static size_t column_offset(const char *s, size_t column)
{
    size_t i = 0, seen = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (seen == column)
                return i;
            seen++;
        }
    }
    return i;
}

/* Writes name in exactly `width` columns: padded, or (fit) cut in the
 * middle around "…" keeping its start and its end (generic types differ
 * at both). Control bytes show as '?' so a hostile name cannot break the
 * line. */
static void put_name(FILE *f, const char *name, size_t width, bool fit)
{
    size_t cols = text_columns(name), len = strlen(name);
    size_t head_end = len, tail_start = len;
    if (fit && cols > width) {
        size_t tail = (width - 1) * 2 / 5, head = width - 1 - tail;
        head_end = column_offset(name, head);
        tail_start = column_offset(name, cols - tail);
        cols = width;
    }
    for (size_t i = 0; i < len; i++) {
        if (i == head_end && head_end < tail_start) {
            fputs("\xE2\x80\xA6", f); /* U+2026 HORIZONTAL ELLIPSIS */
            i = tail_start;
            if (i >= len)
                break;
        }
        unsigned char ch = (unsigned char)name[i];
        fputc(ch < 0x20 || ch == 0x7F ? '?' : ch, f);
    }
    for (; cols < width; cols++)
        fputc(' ', f);
}

/* A table column after Type: its header, width, and whether only --wide
 * shows it. */
typedef struct column {
    const char *header;
    int width;
    bool wide_only;
} column;

/* Writes a header or a row: Type (name) then the cells of the columns
 * shown. */
static void put_row(FILE *f, const char *name, size_t type_width, bool wide, const column *cols,
                    size_t ncols, char cells[][CELL])
{
    put_name(f, name, type_width, !wide);
    for (size_t i = 0; i < ncols; i++)
        if (wide || !cols[i].wide_only)
            fprintf(f, " %*s", cols[i].width, cells ? cells[i] : cols[i].header);
    fputc('\n', f);
}

static const column type_columns[] = {
    {"Samples", 8, false}, {"Bytes", 12, false},   {"EstBytes", 13, false}, {"DiedG0", 7, false},
    {"DiedG1", 7, false},  {"DiedG2", 7, false},   {"Unseen", 7, true},     {"AliveEnd", 8, false},
    {"Pinned", 7, true},   {"GCs50", 7, false},    {"GCs90", 7, false},     {"GCs99", 7, true},
    {"GCsMax", 7, true},   {"ms50", 10, false},    {"ms90", 10, false},     {"ms99", 10, true},
    {"msMax", 10, true},
};
enum { TYPE_CELLS = sizeof type_columns / sizeof type_columns[0] };

static const column survivor_columns[] = {
    {"Objects", 8, false}, {"Bytes", 12, false}, {"EstBytes", 13, false}, {"Gen0", 7, false},
    {"Gen1", 7, false},    {"Gen2", 7, false},   {"LOH", 7, false},       {"POH", 7, false},
};
enum { SURVIVOR_CELLS = sizeof survivor_columns / sizeof survivor_columns[0] };

static const column gen2_columns[] = {{"Objects", 8, false}, {"Bytes", 12, false}};

static void cell_u64(char *c, uint64_t v) { snprintf(c, CELL, "%" PRIu64, v); }

static void type_cells(const gcs_objects_summary *s, row r, char c[TYPE_CELLS][CELL])
{
    const gcs_lifetime_summary *l = &r->lifetime;
    cell_u64(c[0], r->samples);
    bytes_text(r->sample_bytes, r->samples, r->samples_without_size, c[1], CELL);
    bytes_text(r->estimated_bytes, 1, !s->allocation_ticks, c[2], CELL);
    cell_u64(c[3], r->died_in_gc[0]);
    cell_u64(c[4], r->died_in_gc[1]);
    cell_u64(c[5], r->died_in_gc[2]);
    cell_u64(c[6], r->died_unseen);
    cell_u64(c[7], r->alive_at_end);
    cell_u64(c[8], r->pinned);
    const unsigned gcs[4] = {l->gcs_p50, l->gcs_p90, l->gcs_p99, l->gcs_max};
    const double ms[4] = {l->ms_p50, l->ms_p90, l->ms_p99, l->ms_max};
    for (int k = 0; k < 4; k++) {
        if (l->count) {
            snprintf(c[9 + k], CELL, "%u", gcs[k]);
            snprintf(c[13 + k], CELL, "%.3f", ms[k]);
        } else {
            snprintf(c[9 + k], CELL, "-");
            snprintf(c[13 + k], CELL, "-");
        }
    }
}

/* The Type column's width: fixed, or (wide) the longest name's. */
static size_t type_width(const gcs_objects *a, bool wide)
{
    if (!wide)
        return TYPE_COLUMNS;
    size_t w = 48;
    char idbuf[40];
    for (size_t i = 0; i < gcs_objects_type_count(a); i++) {
        size_t n = text_columns(display_name(gcs_objects_type(a, i), idbuf, sizeof idbuf));
        if (n > w)
            w = n;
    }
    return w;
}

static void write_table(const gcs_objects *a, FILE *f, bool wide, size_t limit)
{
    const gcs_objects_summary *s = gcs_objects_get_summary(a);
    char idbuf[40];
    size_t n = gcs_objects_type_count(a), tw = type_width(a, wide);
    /* Estimates come from AllocationTick events: none, none known. */
    bool tick_samples = s->ticks_with_address > 0;
    fprintf(f, "Objects by type (%zu types; sampled allocations followed across GCs)\n", n);
    if (time_filtered(s) || limit) {
        char rt[120];
        fprintf(f, "Filtered:");
        if (time_filtered(s))
            fprintf(f, " objects allocated %s only (%" PRIu64
                       " allocation events outside left out; every GC followed)%s",
                    range_text(s, rt, sizeof rt), s->allocations_outside_range, limit ? ";" : "");
        if (limit)
            fprintf(f, " at most %zu types per list", limit);
        fprintf(f, "\n");
    }
    if (!s->movement_seen)
        fprintf(f, "note: no GC/Bulk*ObjectRanges events: deaths cannot be known "
                   "(record with keyword 0x400000, GCHeapSurvivalAndMovement)\n");
    symbols_note(f, s, gcs_objects_get_symbols_info(a));
    fprintf(f, "Bytes: sizes of the samples; EstBytes: bytes allocated as AllocationTick events "
               "estimate them (each stands for its AllocationAmount:\n"
               "PerfView's GC Heap Alloc Ignore Free (Coarse Sampling)); - unknown; N+ at least N;"
               " GCs/ms50/90: lifetime percentiles%s\n",
            wide ? "" : " (--wide: Unseen, Pinned, p99, max)");
    if (s->samples_without_size)
        fprintf(f, "note: %" PRIu64 " samples without an object size (AllocationTick before V4)\n",
                s->samples_without_size);
    char cells[TYPE_CELLS][CELL];
    put_row(f, "Type", tw, wide, type_columns, TYPE_CELLS, NULL);
    for (size_t i = 0; i < shown(n, limit); i++) {
        row r = gcs_objects_type(a, i);
        type_cells(s, r, cells);
        put_row(f, display_name(r, idbuf, sizeof idbuf), tw, wide, type_columns, TYPE_CELLS,
                cells);
    }

    size_t k;
    row *rows = view(a, has_survivors, cmp_survivors, &k);
    fprintf(f, "\nSurvivors at end of trace by type (%zu types)\n", rows ? k : 0);
    put_row(f, "Type", tw, wide, survivor_columns, SURVIVOR_CELLS, NULL);
    for (size_t i = 0; rows && i < shown(k, limit); i++) {
        row r = rows[i];
        cell_u64(cells[0], r->alive_at_end);
        bytes_text(r->alive_at_end_bytes, r->alive_at_end, r->alive_at_end_without_size,
                   cells[1], CELL);
        bytes_text(r->alive_at_end_estimated_bytes, 1, !tick_samples, cells[2], CELL);
        for (int g = 0; g < 5; g++)
            cell_u64(cells[3 + g], r->alive_at_end_gen[g]);
        put_row(f, display_name(r, idbuf, sizeof idbuf), tw, wide, survivor_columns,
                SURVIVOR_CELLS, cells);
    }
    free(rows);

    rows = view(a, has_gen2_deaths, cmp_gen2_deaths, &k);
    fprintf(f, "\nGen2 object deaths by type (%zu types)\n", rows ? k : 0);
    put_row(f, "Type", tw, wide, gen2_columns, 2, NULL);
    for (size_t i = 0; rows && i < shown(k, limit); i++) {
        cell_u64(cells[0], rows[i]->died_gen2);
        bytes_text(rows[i]->died_gen2_bytes, rows[i]->died_gen2, rows[i]->died_gen2_without_size,
                   cells[1], CELL);
        put_row(f, display_name(rows[i], idbuf, sizeof idbuf), tw, wide, gen2_columns, 2, cells);
    }
    free(rows);

    counter c[MAX_COUNTERS];
    size_t nc = counters(s, c);
    fprintf(f, "\nCounters (zero ones omitted)\n");
    for (size_t i = 0; i < nc; i++)
        if (c[i].value)
            fprintf(f, "  %-36s %" PRIu64 "\n", c[i].name, c[i].value);
}

/* ---- JSON ------------------------------------------------------------------------ */


static void json_type(FILE *f, const gcs_objects_summary *s, row r)
{
    const gcs_lifetime_summary *l = &r->lifetime;
    fprintf(f, "{\"name\":");
    gcs_json_string(f, r->name ? r->name : "");
    fprintf(f, ",\"type_id\":");
    write_type_id(f, r->type_id, "null");
    fprintf(f, ",\"samples\":%" PRIu64 ",\"bytes\":", r->samples);
    write_bytes(f, r->sample_bytes, r->samples, r->samples_without_size, "null");
    fprintf(f, ",\"samples_without_size\":%" PRIu64 ",\"allocation_ticks\":%" PRIu64
               ",\"estimated_bytes\":",
            r->samples_without_size, r->allocation_ticks);
    write_bytes(f, r->estimated_bytes, 1, !s->allocation_ticks, "null");
    fprintf(f,
            ",\"died_gen0_gc\":%" PRIu64 ",\"died_gen1_gc\":%" PRIu64 ",\"died_gen2_gc\":%" PRIu64
            ",\"died_unseen\":%" PRIu64 ",\"died_in_gen2\":%" PRIu64 ",\"died_in_gen2_bytes\":",
            r->died_in_gc[0], r->died_in_gc[1], r->died_in_gc[2], r->died_unseen, r->died_gen2);
    write_bytes(f, r->died_gen2_bytes, r->died_gen2, r->died_gen2_without_size, "null");
    fprintf(f,
            ",\"first_death_gc\":%u,\"last_death_gc\":%u,\"alive_at_end\":%" PRIu64
            ",\"alive_at_end_bytes\":",
            r->first_death_gc, r->last_death_gc, r->alive_at_end);
    write_bytes(f, r->alive_at_end_bytes, r->alive_at_end, r->alive_at_end_without_size, "null");
    fprintf(f, ",\"alive_at_end_estimated_bytes\":");
    write_bytes(f, r->alive_at_end_estimated_bytes, 1, !s->ticks_with_address, "null");
    fprintf(f,
            ",\"alive_at_end_by_generation\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 "],\"pinned\":%" PRIu64,
            r->alive_at_end_gen[0], r->alive_at_end_gen[1], r->alive_at_end_gen[2],
            r->alive_at_end_gen[3], r->alive_at_end_gen[4], r->pinned);
    if (l->count)
        fprintf(f,
                ",\"lifetime\":{\"count\":%" PRIu64 ",\"gcs\":{\"p50\":%u,\"p90\":%u,\"p99\":%u,"
                "\"max\":%u},\"ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}}}",
                l->count, l->gcs_p50, l->gcs_p90, l->gcs_p99, l->gcs_max, l->ms_p50, l->ms_p90,
                l->ms_p99, l->ms_max);
    else
        fprintf(f, ",\"lifetime\":null}");
}

static void write_json(const gcs_objects *a, FILE *f, size_t limit)
{
    const gcs_objects_summary *s = gcs_objects_get_summary(a);
    size_t n = gcs_objects_type_count(a);
    fprintf(f, "{\"movement_seen\":%s,\n", s->movement_seen ? "true" : "false");
    symbols_json(f, s, gcs_objects_get_symbols_info(a));
    /* Only when filtered: the unfiltered document keeps its shape. */
    if (time_filtered(s) || limit) {
        char num[40];
        fprintf(f, "\"filter\":{\"from_ms\":%s,",
                s->has_from ? gcs_format_fixed(num, sizeof num, s->from_ms, 3) : "null");
        fprintf(f, "\"to_ms\":%s,\"allocations_outside_range\":%" PRIu64 ",\"types\":%zu,",
                s->has_to ? gcs_format_fixed(num, sizeof num, s->to_ms, 3) : "null",
                s->allocations_outside_range, n);
        if (limit)
            fprintf(f, "\"limit\":%zu},\n", limit);
        else
            fprintf(f, "\"limit\":null},\n");
    }
    fprintf(f, "\"types\":[");
    for (size_t i = 0; i < shown(n, limit); i++) {
        fprintf(f, "%s\n ", i ? "," : "");
        json_type(f, s, gcs_objects_type(a, i));
    }
    size_t k;
    row *rows = view(a, has_survivors, cmp_survivors, &k);
    fprintf(f, "],\n\"survivors_at_end\":[");
    for (size_t i = 0; rows && i < shown(k, limit); i++) {
        fprintf(f, "%s\n {\"name\":", i ? "," : "");
        gcs_json_string(f, rows[i]->name ? rows[i]->name : "");
        row r = rows[i];
        fprintf(f, ",\"type_id\":");
        write_type_id(f, r->type_id, "null");
        fprintf(f, ",\"objects\":%" PRIu64 ",\"bytes\":", r->alive_at_end);
        write_bytes(f, r->alive_at_end_bytes, r->alive_at_end, r->alive_at_end_without_size,
                    "null");
        fprintf(f, ",\"estimated_bytes\":");
        write_bytes(f, r->alive_at_end_estimated_bytes, 1, !s->ticks_with_address, "null");
        fputc('}', f);
    }
    free(rows);
    rows = view(a, has_gen2_deaths, cmp_gen2_deaths, &k);
    fprintf(f, "],\n\"gen2_deaths\":[");
    for (size_t i = 0; rows && i < shown(k, limit); i++) {
        fprintf(f, "%s\n {\"name\":", i ? "," : "");
        gcs_json_string(f, rows[i]->name ? rows[i]->name : "");
        fprintf(f, ",\"type_id\":");
        write_type_id(f, rows[i]->type_id, "null");
        fprintf(f, ",\"objects\":%" PRIu64 ",\"bytes\":", rows[i]->died_gen2);
        write_bytes(f, rows[i]->died_gen2_bytes, rows[i]->died_gen2,
                    rows[i]->died_gen2_without_size, "null");
        fputc('}', f);
    }
    free(rows);
    counter c[MAX_COUNTERS];
    size_t nc = counters(s, c);
    fprintf(f, "],\n\"counters\":{");
    for (size_t i = 0; i < nc; i++)
        fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", c[i].name, c[i].value);
    fprintf(f, "}}\n");
}

/* Only for a NativeAOT trace (a native image seen, or type names NULL) or
 * when symbols were given: other documents keep their shape. */
static void symbols_json(FILE *f, const gcs_objects_summary *s, const gcs_objects_symbols_info *si)
{
    if (!si->used && !si->image_base && !s->null_type_names)
        return;
    fprintf(f, "\"native_image\":{\"path\":");
    gcs_json_string(f, si->image_path);
    fprintf(f, ",\"build_id\":");
    gcs_json_string(f, si->trace_build_id);
    if (si->image_base)
        fprintf(f, ",\"base\":\"0x%" PRIx64 "\"", si->image_base);
    else
        fprintf(f, ",\"base\":null");
    fprintf(f, ",\"base_from\":%s",
            si->base_from == GCS_IMAGE_BASE_FROM_MODULE_EVENT ? "\"module_event\""
            : si->base_from == GCS_IMAGE_BASE_FROM_TYPE_IDS   ? "\"type_ids\""
                                                              : "null");
    fprintf(f, ",\"symbols_used\":%s", si->used ? "true" : "false");
    fprintf(f, ",\"symbols_build_id\":");
    if (si->used)
        gcs_json_string(f, si->file_build_id);
    else
        fprintf(f, "null");
    fprintf(f, ",\"build_id_mismatch\":%s", si->build_id_mismatch ? "true" : "false");
    fprintf(f, ",\"types_without_name\":%" PRIu64 ",\"types_named_from_symbols\":%" PRIu64 "},\n",
            s->types_without_name, s->types_named_from_symbols);
}

/* ---- CSV --------------------------------------------------------------------------- */

/* One row per type with every figure; the two views are sorts of it. */
static void write_csv(const gcs_objects *a, FILE *f, const char *trace_name, size_t limit)
{
    const gcs_objects_summary *s = gcs_objects_get_summary(a);
    fprintf(f, "trace,type,type_id,samples,bytes,died_gen0_gc,died_gen1_gc,died_gen2_gc,died_unseen,"
               "died_in_gen2,died_in_gen2_bytes,first_death_gc,last_death_gc,alive_at_end,"
               "alive_at_end_bytes,"
               "alive_gen0,alive_gen1,alive_gen2,alive_loh,alive_poh,pinned,lifetime_count,"
               "lifetime_gcs_p50,lifetime_gcs_p90,lifetime_gcs_p99,lifetime_gcs_max,"
               "lifetime_ms_p50,lifetime_ms_p90,lifetime_ms_p99,lifetime_ms_max,"
               "samples_without_size,allocation_ticks,estimated_bytes,"
               "died_in_gen2_without_size,alive_at_end_without_size,"
               "alive_at_end_estimated_bytes\n");
    size_t n = shown(gcs_objects_type_count(a), limit);
    for (size_t i = 0; i < n; i++) {
        row r = gcs_objects_type(a, i);
        const gcs_lifetime_summary *l = &r->lifetime;
        if (trace_name)
            gcs_csv_quoted(f, trace_name);
        fputc(',', f);
        gcs_csv_quoted(f, r->name ? r->name : "");
        fputc(',', f);
        write_type_id(f, r->type_id, "");
        fprintf(f, ",%" PRIu64 ",", r->samples);
        write_bytes(f, r->sample_bytes, r->samples, r->samples_without_size, "");
        fprintf(f,
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
                r->died_in_gc[0], r->died_in_gc[1], r->died_in_gc[2], r->died_unseen,
                r->died_gen2);
        write_bytes(f, r->died_gen2_bytes, r->died_gen2, r->died_gen2_without_size, "");
        /* GC numbers start at 1: 0 says no death, an empty cell. */
        if (r->first_death_gc)
            fprintf(f, ",%u,%u", r->first_death_gc, r->last_death_gc);
        else
            fputs(",,", f);
        fprintf(f, ",%" PRIu64 ",", r->alive_at_end);
        write_bytes(f, r->alive_at_end_bytes, r->alive_at_end, r->alive_at_end_without_size, "");
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64,
                r->alive_at_end_gen[0], r->alive_at_end_gen[1], r->alive_at_end_gen[2],
                r->alive_at_end_gen[3], r->alive_at_end_gen[4], r->pinned, l->count);
        if (l->count)
            fprintf(f, ",%u,%u,%u,%u,%.3f,%.3f,%.3f,%.3f", l->gcs_p50, l->gcs_p90, l->gcs_p99,
                    l->gcs_max, l->ms_p50, l->ms_p90, l->ms_p99, l->ms_max);
        else
            fprintf(f, ",,,,,,,,");
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", r->samples_without_size, r->allocation_ticks);
        write_bytes(f, r->estimated_bytes, 1, !s->allocation_ticks, "");
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", r->died_gen2_without_size,
                r->alive_at_end_without_size);
        write_bytes(f, r->alive_at_end_estimated_bytes, 1, !s->ticks_with_address, "");
        fputc('\n', f);
    }
}

gcs_status gcs_objects_report_write(const gcs_objects *a, FILE *out,
                                    const gcs_objects_report_options *opts, gcs_error *err)
{
    gcs_objects_report_options defaults = {0};
    if (!opts)
        opts = &defaults;
    switch (opts->format) {
    case GCS_OBJECTS_TABLE: write_table(a, out, opts->wide, opts->limit); break;
    case GCS_OBJECTS_JSON: write_json(a, out, opts->limit); break;
    case GCS_OBJECTS_CSV: write_csv(a, out, opts->trace_name, opts->limit); break;
    default: return GCS_FAIL(err, GCS_ERR_ARG, 0, "unknown report format %d", (int)opts->format);
    }
    if (fflush(out) != 0 || ferror(out))
        return GCS_FAIL(err, GCS_ERR_IO, 0, "writing the report failed");
    return GCS_OK;
}

gcs_status gcs_objects_report(const gcs_objects *a, FILE *out, gcs_objects_format format,
                              gcs_error *err)
{
    gcs_objects_report_options o = {.format = format};
    return gcs_objects_report_write(a, out, &o, err);
}
