/*
 * report/gc_report.c - `gcscope stats` output: table, JSON, CSV.
 *
 * Deterministic: fixed decimals, '.' as decimal separator whatever the
 * locale, no pointers, runtimes ordered by pid. NaN/infinite values are
 * null in JSON, empty in CSV and "-" in tables. Schema: docs/gc-stats.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "gcscope/gc.h"
#include "report/format_fixed.h"

#define DEC 6 /* decimals of ms, MB and % in JSON and CSV */

/* printf("%.*f") with '.' whatever LC_NUMERIC says, and no "-0.000". */
static const char *fixed(char *buf, size_t cap, double v, int decimals)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", "");
        return buf;
    }
    gcs_format_fixed(buf, cap, v, decimals);
    /* "-0.000000" -> "0.000000" */
    if (buf[0] == '-') {
        bool zero = true;
        for (const char *p = buf + 1; *p; p++)
            if (*p != '0' && *p != '.')
                zero = false;
        if (zero)
            memmove(buf, buf + 1, strlen(buf));
    }
    return buf;
}

static void json_num(FILE *f, double v)
{
    char b[64];
    if (!isfinite(v))
        fputs("null", f);
    else
        fputs(fixed(b, sizeof b, v, DEC), f);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static const char *reason_text(uint32_t reason, char *buf, size_t cap)
{
    const char *n = gcs_gc_reason_name(reason);
    if (n)
        return n;
    snprintf(buf, cap, "%u", reason);
    return buf;
}

static const char *type_text(uint32_t type, char *buf, size_t cap)
{
    const char *n = gcs_gc_type_name(type);
    if (n)
        return n;
    snprintf(buf, cap, "%u", type);
    return buf;
}

/* PerfView's "Gen" column: generation, N/B/F, and I (induced) or i (not forced). */
static const char *gen_text(const gcs_gc_info *gc, char *buf, size_t cap)
{
    const char *kind = gc->type == GCS_GC_BACKGROUND ? "B"
                       : gc->type == GCS_GC_FOREGROUND ? "F"
                                                       : "N";
    const char *ind = gc->reason == 1 ? "I" : gc->reason == 7 ? "i" : "";
    snprintf(buf, cap, "%u%s%s", gc->generation, kind, ind);
    return buf;
}

/* Runtimes that ran no GC while traced have nothing to report (a table of
 * zeros and "Heap count -1" would look like measurements). */
static bool wanted(const gcs_gc_process *p, const gcs_gc_report_options *o)
{
    return (!o->filter_pid || p->pid == o->pid) && p->gc_count > 0;
}

/* ------------------------------------------------------------------ JSON */

static void json_rollup(FILE *f, const char *row, const gcs_gc_rollup *r)
{
    fputs("        {\"generation\": ", f);
    json_str(f, row);
    fprintf(f, ", \"count\": %u, \"max_pause_ms\": ", r->count);
    json_num(f, r->max_pause_ms);
    fputs(", \"max_peak_mb\": ", f);
    json_num(f, r->max_size_peak_mb);
    fputs(", \"max_alloc_rate_mb_s\": ", f);
    json_num(f, r->max_alloc_rate_mb_s);
    fputs(", \"total_pause_ms\": ", f);
    json_num(f, r->total_pause_ms);
    fputs(", \"total_allocated_mb\": ", f);
    json_num(f, r->total_allocated_mb);
    fputs(", \"mean_pause_ms\": ", f);
    json_num(f, r->mean_pause_ms);
    fprintf(f, ", \"induced\": %u}", r->num_induced);
}

static void json_pct(FILE *f, const char *name, const gcs_gc_percentiles *p, bool last)
{
    fprintf(f, "        \"%s\": {\"count\": %u, \"p50\": ", name, p->count);
    json_num(f, p->p50);
    fputs(", \"p90\": ", f);
    json_num(f, p->p90);
    fputs(", \"p99\": ", f);
    json_num(f, p->p99);
    fputs(", \"max\": ", f);
    json_num(f, p->max);
    fprintf(f, "}%s\n", last ? "" : ",");
}

static void json_arr5(FILE *f, const char *key, const double v[GCS_GEN_COUNT])
{
    fprintf(f, ", \"%s\": [", key);
    for (int g = 0; g < GCS_GEN_COUNT; g++) {
        if (g)
            fputs(", ", f);
        json_num(f, v[g]);
    }
    fputc(']', f);
}

static void json_gc(FILE *f, const gcs_gc_info *gc, bool last)
{
    char b[32];
    fprintf(f, "        {\"number\": %d, \"generation\": %u, \"type\": ", gc->number, gc->generation);
    json_str(f, type_text(gc->type, b, sizeof b));
    fputs(", \"reason\": ", f);
    json_str(f, reason_text(gc->reason, b, sizeof b));
    const char *keys[] = {"start_ms", "pause_start_ms", "pause_ms", "suspend_ms", "duration_ms",
                          "pause_time_pct", "heap_size_before_mb", "heap_size_after_mb",
                          "heap_size_peak_mb", "ratio_peak_after", "promoted_mb"};
    double vals[] = {gc->start_ms, gc->pause_start_ms, gc->pause_ms, gc->suspend_ms,
                     gc->duration_ms, gc->pause_time_pct, gc->heap_size_before_mb,
                     gc->heap_size_after_mb, gc->heap_size_peak_mb, gc->ratio_peak_after,
                     gc->promoted_mb};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        fprintf(f, ", \"%s\": ", keys[k]);
        json_num(f, vals[k]);
    }
    json_arr5(f, "gen_size_before_mb", gc->gen_size_before_mb);
    json_arr5(f, "gen_size_after_mb", gc->gen_size_after_mb);
    json_arr5(f, "survival_pct", gc->survival_pct);
    json_arr5(f, "fragmentation_pct", gc->fragmentation_pct);
    fputs(", \"allocated_since_last_gc_mb\": ", f);
    json_num(f, gc->allocated_since_last_gc_mb);
    fputs(", \"gen0_allocated_mb\": ", f);
    json_num(f, gc->user_allocated_mb[0]);
    fputs(", \"alloc_rate_mb_s\": ", f);
    json_num(f, gc->alloc_rate_mb_s);
    fprintf(f, ", \"alloc_tick_mb\": [");
    for (int k = 0; k < 3; k++) {
        if (k)
            fputs(", ", f);
        json_num(f, gc->alloc_tick_mb[k]);
    }
    fputc(']', f);
    fputs(", \"duration_since_last_restart_ms\": ", f);
    json_num(f, gc->duration_since_last_restart_ms);
    fputs(", \"finalization_promoted_mb\": ", f);
    json_num(f, gc->finalization_promoted_mb);
    if (gc->finalization_promoted_implausible)
        fputs(", \"finalization_promoted_implausible\": true", f);
    fprintf(f, ", \"pinned_objects\": %u, \"condemned_reasons\": [", gc->pinned_objects);
    bool first = true;
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
        if (!(gc->condemned_reasons & (1u << g)))
            continue;
        if (!first)
            fputs(", ", f);
        first = false;
        json_str(f, gcs_gc_condemned_group_name(g));
    }
    fprintf(f, "], \"is_complete\": %s", gc->is_complete ? "true" : "false");
    if (!gc->is_complete) {
        fputs(", \"incomplete_reason\": ", f);
        json_str(f, gcs_gc_incomplete_name(gc->incomplete_reason));
    }
    fprintf(f, "}%s\n", last ? "" : ",");
}

static void json_process(FILE *f, const gcs_gc_process *p, bool last)
{
    fprintf(f, "    {\n      \"pid\": %u,\n      \"clr_instance_id\": %u,\n      \"runtime_version\": ",
            p->pid, (unsigned)p->clr_instance_id);
    if (p->runtime_version[0])
        json_str(f, p->runtime_version);
    else
        fputs("null", f);
    fputs(",\n      \"gc_mode\": ", f);
    json_str(f, p->gc_mode);
    fprintf(f, ",\n      \"gc_mode_inferred\": %s", p->gc_mode_inferred ? "true" : "false");
    fprintf(f, ",\n      \"concurrent\": %s,\n      \"concurrent_inferred\": %s",
            p->concurrent < 0 ? "null" : p->concurrent ? "true" : "false",
            p->concurrent_inferred ? "true" : "false");
    fprintf(f, ",\n      \"heap_count\": %d,\n", p->heap_count);

    fputs("      \"summary\": {\"trace_duration_ms\": ", f);
    json_num(f, p->last_event_ms - p->first_event_ms);
    fputs(", \"total_allocated_mb\": ", f);
    json_num(f, p->all.total_allocated_mb);
    fprintf(f, ", \"gc_count\": %u, \"incomplete_gc_count\": %llu, \"total_pause_ms\": ",
            p->all.count, (unsigned long long)p->problems.incomplete_gcs);
    json_num(f, p->all.total_pause_ms);
    fputs(", \"max_pause_ms\": ", f);
    json_num(f, p->all.max_pause_ms);
    fputs(", \"mean_pause_ms\": ", f);
    json_num(f, p->all.mean_pause_ms);
    fputs(", \"max_suspend_ms\": ", f);
    json_num(f, p->all.max_suspend_ms);
    fputs(", \"pause_time_pct_of_trace\": ", f);
    json_num(f, p->pause_time_pct_of_trace);
    fputs(", \"traceevent_pause_time_pct\": ", f);
    json_num(f, p->pause_time_pct);
    fputs(", \"traceevent_process_duration_ms\": ", f);
    json_num(f, p->process_duration_ms);
    fputs(", \"max_heap_size_mb\": ", f);
    json_num(f, p->all.max_size_peak_mb);
    fputs(", \"total_promoted_mb\": ", f);
    json_num(f, p->all.total_promoted_mb);
    fputs(", \"max_alloc_rate_mb_s\": ", f);
    json_num(f, p->all.max_alloc_rate_mb_s);
    fprintf(f, ", \"induced\": %u},\n", p->all.num_induced);

    fputs("      \"generations\": [\n", f);
    json_rollup(f, "all", &p->all);
    for (int g = 0; g < 3; g++) {
        char row[16];
        snprintf(row, sizeof row, "%d", g);
        fputs(",\n", f);
        json_rollup(f, row, &p->gen[g]);
    }
    fputs("\n      ],\n      \"percentiles\": {\n", f);
    json_pct(f, "gen0", &p->pct_gen[0], false);
    json_pct(f, "gen1", &p->pct_gen[1], false);
    json_pct(f, "gen2", &p->pct_gen[2], false);
    json_pct(f, "blocking", &p->pct_kind[GCS_GC_NONCONCURRENT], false);
    json_pct(f, "background", &p->pct_kind[GCS_GC_BACKGROUND], false);
    json_pct(f, "foreground", &p->pct_kind[GCS_GC_FOREGROUND], false);
    json_pct(f, "all", &p->pct_all, false);
    fputs("        \"histogram\": [", f);
    for (int b = 0; b < GCS_GC_HIST_BUCKETS; b++) {
        fputs(b ? ", {\"below_ms\": " : "{\"below_ms\": ", f);
        if (b < GCS_GC_HIST_BUCKETS - 1)
            json_num(f, gcs_gc_hist_bounds_ms[b]);
        else
            fputs("null", f);
        fprintf(f, ", \"count\": %llu}", (unsigned long long)p->histogram[b]);
    }
    fputs("]\n      },\n", f);

    const gcs_gc_problems *q = &p->problems;
    fprintf(f,
            "      \"problems\": {\"incomplete_gcs\": %llu, \"bad_times\": %llu, "
            "\"starts_without_suspension\": %llu, \"duplicate_starts\": %llu, "
            "\"number_jumps\": %llu, \"orphan_events\": %llu, \"truncated_events\": %llu, "
            "\"unrecognised_histories\": %llu, \"lost_events\": %llu, "
            "\"implausible_values\": %llu},\n",
            (unsigned long long)q->incomplete_gcs, (unsigned long long)q->bad_times,
            (unsigned long long)q->starts_without_suspension,
            (unsigned long long)q->duplicate_starts, (unsigned long long)q->number_jumps,
            (unsigned long long)q->orphan_events, (unsigned long long)q->truncated_events,
            (unsigned long long)q->unrecognised_histories, (unsigned long long)q->lost_events,
            (unsigned long long)q->implausible_values);
    fputs("      \"gcs\": [\n", f);
    for (size_t i = 0; i < p->gc_count; i++)
        json_gc(f, &p->gcs[i], i + 1 == p->gc_count);
    fprintf(f, "      ]\n    }%s\n", last ? "" : ",");
}

/* ------------------------------------------------------------------- CSV */

static void csv_num(FILE *f, double v)
{
    char b[64];
    fputc(',', f);
    if (isfinite(v))
        fputs(fixed(b, sizeof b, v, DEC), f);
}

static void csv_header(FILE *f)
{
    fputs("pid,number,generation,type,reason,gen_name,is_complete,incomplete_reason,start_ms,"
          "pause_start_ms,pause_ms,suspend_ms,duration_ms,pause_time_pct,gen0_allocated_mb,"
          "allocated_since_last_gc_mb,alloc_rate_mb_s,heap_size_before_mb,heap_size_peak_mb,"
          "heap_size_after_mb,ratio_peak_after,promoted_mb",
          f);
    static const char *const gens[GCS_GEN_COUNT] = {"gen0", "gen1", "gen2", "loh", "poh"};
    for (int g = 0; g < GCS_GEN_COUNT; g++)
        fprintf(f, ",%s_size_after_mb,%s_survival_pct,%s_fragmentation_pct", gens[g], gens[g],
                gens[g]);
    fputs(",finalization_promoted_mb,pinned_objects,condemned_reasons\n", f);
}

static void csv_gc(FILE *f, uint32_t pid, const gcs_gc_info *gc)
{
    char b1[32], b2[32], b3[32];
    fprintf(f, "%u,%d,%u,%s,%s,%s,%s,\"%s\"", pid, gc->number, gc->generation,
            type_text(gc->type, b1, sizeof b1), reason_text(gc->reason, b2, sizeof b2),
            gen_text(gc, b3, sizeof b3), gc->is_complete ? "true" : "false",
            gcs_gc_incomplete_name(gc->incomplete_reason));
    double v[] = {gc->start_ms, gc->pause_start_ms, gc->pause_ms, gc->suspend_ms, gc->duration_ms,
                  gc->pause_time_pct, gc->user_allocated_mb[0], gc->allocated_since_last_gc_mb,
                  gc->alloc_rate_mb_s, gc->heap_size_before_mb, gc->heap_size_peak_mb,
                  gc->heap_size_after_mb, gc->ratio_peak_after, gc->promoted_mb};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        csv_num(f, v[k]);
    for (int g = 0; g < GCS_GEN_COUNT; g++) {
        csv_num(f, gc->gen_size_after_mb[g]);
        csv_num(f, gc->survival_pct[g]);
        csv_num(f, gc->fragmentation_pct[g]);
    }
    /* Implausible: empty, so that a spreadsheet sums no garbage. */
    csv_num(f, gc->finalization_promoted_implausible ? NAN : gc->finalization_promoted_mb);
    fprintf(f, ",%u,", gc->pinned_objects);
    bool first = true;
    for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
        if (!(gc->condemned_reasons & (1u << g)))
            continue;
        fprintf(f, "%s%s", first ? "" : "|", gcs_gc_condemned_group_name(g));
        first = false;
    }
    fputc('\n', f);
}

/* ----------------------------------------------------------------- table */

static const char *tnum(char *buf, size_t cap, double v, int decimals)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    return fixed(buf, cap, v, decimals);
}

static void table_rollup(FILE *f, const char *row, const gcs_gc_rollup *r)
{
    char a[32], b[32], c[32], d[32], e[32], g[32];
    fprintf(f, "  %-4s %7u %10s %11s %13s %12s %13s %10s %8u\n", row, r->count,
            tnum(a, sizeof a, r->max_pause_ms, 1), tnum(b, sizeof b, r->max_size_peak_mb, 1),
            tnum(c, sizeof c, r->max_alloc_rate_mb_s, 3), tnum(d, sizeof d, r->total_pause_ms, 1),
            tnum(e, sizeof e, r->total_allocated_mb, 1), tnum(g, sizeof g, r->mean_pause_ms, 1),
            r->num_induced);
}

static void table_pct(FILE *f, const char *name, const gcs_gc_percentiles *p)
{
    char a[32], b[32], c[32], d[32];
    fprintf(f, "  %-11s %7u %10s %10s %10s %10s\n", name, p->count, tnum(a, sizeof a, p->p50, 3),
            tnum(b, sizeof b, p->p90, 3), tnum(c, sizeof c, p->p99, 3), tnum(d, sizeof d, p->max, 3));
}

static void table_process(FILE *f, const gcs_gc_process *p, const char *trace, bool list_gcs)
{
    char a[32], b[32];
    fprintf(f, "Process %u (ClrInstanceID %u)%s%s\n", p->pid, (unsigned)p->clr_instance_id,
            trace ? " in " : "", trace ? trace : "");
    fprintf(f, "  Runtime version      %s\n", p->runtime_version[0] ? p->runtime_version : "unknown");
    char mode_why[48] = "";
    if (p->gc_mode_inferred)
        snprintf(mode_why, sizeof mode_why, " (inferred: %d heap%s)", p->max_heap_count,
                 p->max_heap_count == 1 ? "" : "s");
    fprintf(f, "  GC flavour           %s%s, %s%s\n", p->gc_mode, mode_why,
            p->concurrent < 0 ? "concurrent unknown"
            : p->concurrent   ? "concurrent"
                              : "non-concurrent",
            p->concurrent_inferred ? " (inferred: background GCs seen)" : "");
    if (p->heap_count < 0)
        fputs("  Heap count           unknown (no GCGlobalHeapHistory)\n", f);
    else
        fprintf(f, "  Heap count           %d\n", p->heap_count);
    fprintf(f, "  Trace duration       %s ms\n",
            tnum(a, sizeof a, p->last_event_ms - p->first_event_ms, 3));
    fprintf(f, "  Total allocated      %s MB\n", tnum(a, sizeof a, p->all.total_allocated_mb, 3));
    fprintf(f, "  GCs                  %u complete, %llu incomplete\n", p->all.count,
            (unsigned long long)p->problems.incomplete_gcs);
    fprintf(f, "  Total pause          %s ms (max %s ms)\n", tnum(a, sizeof a, p->all.total_pause_ms, 3),
            tnum(b, sizeof b, p->all.max_pause_ms, 3));
    fprintf(f, "  Time paused for GC   %s %% of the trace (total pause / trace duration)\n",
            tnum(a, sizeof a, p->pause_time_pct_of_trace, 2));
    fprintf(f, "  Max heap size        %s MB\n\n", tnum(a, sizeof a, p->all.max_size_peak_mb, 3));

    fputs("GC Rollup By Generation\n", f);
    fprintf(f, "  %-4s %7s %10s %11s %13s %12s %13s %10s %8s\n", "Gen", "Count", "MaxPause",
            "MaxPeakMB", "MaxAllocMB/s", "TotalPause", "TotalAllocMB", "MeanPause", "Induced");
    table_rollup(f, "ALL", &p->all);
    table_rollup(f, "0", &p->gen[0]);
    table_rollup(f, "1", &p->gen[1]);
    table_rollup(f, "2", &p->gen[2]);

    fputs("\nPause percentiles (ms, nearest rank)\n", f);
    fprintf(f, "  %-11s %7s %10s %10s %10s %10s\n", "Group", "Count", "p50", "p90", "p99", "max");
    table_pct(f, "gen0", &p->pct_gen[0]);
    table_pct(f, "gen1", &p->pct_gen[1]);
    table_pct(f, "gen2", &p->pct_gen[2]);
    table_pct(f, "blocking", &p->pct_kind[GCS_GC_NONCONCURRENT]);
    table_pct(f, "background", &p->pct_kind[GCS_GC_BACKGROUND]);
    table_pct(f, "foreground", &p->pct_kind[GCS_GC_FOREGROUND]);
    table_pct(f, "all", &p->pct_all);

    fputs("\nPause histogram\n", f);
    for (int k = 0; k < GCS_GC_HIST_BUCKETS; k++) {
        char lo[32], hi[32];
        if (k == 0)
            snprintf(lo, sizeof lo, "0");
        else
            tnum(lo, sizeof lo, gcs_gc_hist_bounds_ms[k - 1], 1);
        if (k < GCS_GC_HIST_BUCKETS - 1)
            tnum(hi, sizeof hi, gcs_gc_hist_bounds_ms[k], 1);
        else
            snprintf(hi, sizeof hi, "inf");
        fprintf(f, "  [%6s, %6s) ms %8llu\n", lo, hi, (unsigned long long)p->histogram[k]);
    }

    if (list_gcs) { /* not with summary_only */
        fputs("\nGCs\n", f);
        fprintf(f,
                "  %6s %12s %-16s %-5s %9s %9s %7s %10s %11s %9s %9s %6s %9s"
                " %8s %6s %6s %8s %6s %6s %8s %6s %6s %8s %6s %6s %8s %6s %6s %8s %7s  %s\n",
                "GC#", "PauseStart", "Reason", "Gen", "Suspend", "Pause", "%Pause", "Gen0Alloc",
                "Gen0MB/s", "PeakMB", "AfterMB", "Ratio", "Promoted", "Gen0MB", "Surv%", "Frag%",
                "Gen1MB", "Surv%", "Frag%", "Gen2MB", "Surv%", "Frag%", "LOHMB", "Surv%", "Frag%",
                "POHMB", "Surv%", "Frag%", "FinPrMB", "Pinned", "Condemned / notes");
        for (size_t i = 0; i < p->gc_count; i++) {
            const gcs_gc_info *gc = &p->gcs[i];
            char c[20][32];
            char rb[32];
            double gen0_rate = gc->user_allocated_mb[0] * 1000.0 / gc->duration_since_last_restart_ms;
            fprintf(f, "  %6d %12s %-16s %-5s %9s %9s %7s %10s %11s %9s %9s %6s %9s", gc->number,
                    tnum(c[0], 32, gc->pause_start_ms, 3), reason_text(gc->reason, rb, sizeof rb),
                    gen_text(gc, c[1], 32), tnum(c[2], 32, gc->suspend_ms, 3),
                    tnum(c[3], 32, gc->pause_ms, 3), tnum(c[4], 32, gc->pause_time_pct, 1),
                    tnum(c[5], 32, gc->user_allocated_mb[0], 3), tnum(c[6], 32, gen0_rate, 2),
                    tnum(c[7], 32, gc->heap_size_peak_mb, 3), tnum(c[8], 32, gc->heap_size_after_mb, 3),
                    tnum(c[9], 32, gc->ratio_peak_after, 2), tnum(c[10], 32, gc->promoted_mb, 3));
            for (int g = 0; g < GCS_GEN_COUNT; g++)
                fprintf(f, " %8s %6s %6s", tnum(c[11], 32, gc->gen_size_after_mb[g], 3),
                        tnum(c[12], 32, gc->survival_pct[g], 0),
                        tnum(c[13], 32, gc->fragmentation_pct[g], 2));
            fprintf(f, " %8s %7u  ",
                    gc->finalization_promoted_implausible ? "?"
                                                          : tnum(c[14], 32, gc->finalization_promoted_mb, 2),
                    gc->pinned_objects);
            bool first = true;
            for (uint32_t g = 0; g < GCS_GC_CONDEMNED_GROUPS; g++) {
                if (!(gc->condemned_reasons & (1u << g)))
                    continue;
                fprintf(f, "%s%s", first ? "" : ",", gcs_gc_condemned_group_name(g));
                first = false;
            }
            if (gc->finalization_promoted_implausible) {
                fprintf(f, "%sIMPLAUSIBLE FinalizationPromotedSize", first ? "" : " ");
                first = false;
            }
            if (!gc->is_complete)
                fprintf(f, "%sINCOMPLETE: %s", first ? "" : " ", gcs_gc_incomplete_name(gc->incomplete_reason));
            fputc('\n', f);
        }
    }
    const gcs_gc_problems *q = &p->problems;
    fprintf(f,
            "\nProblems: %llu incomplete GCs (%llu with impossible times), %llu GCStart without "
            "suspension, %llu duplicate GCStart, %llu GC number jumps, %llu orphan events, %llu "
            "truncated events, %llu unrecognised histories, %llu lost events, %llu implausible "
            "values\n\n",
            (unsigned long long)q->incomplete_gcs, (unsigned long long)q->bad_times,
            (unsigned long long)q->starts_without_suspension,
            (unsigned long long)q->duplicate_starts, (unsigned long long)q->number_jumps,
            (unsigned long long)q->orphan_events, (unsigned long long)q->truncated_events,
            (unsigned long long)q->unrecognised_histories, (unsigned long long)q->lost_events,
            (unsigned long long)q->implausible_values);
}

const char *gcs_gc_report_no_gcs_line(void)
{
    return "No GC in this trace: no .NET runtime started a GC while it was traced.";
}

int gcs_gc_report_write(FILE *f, const gcs_gc_analyzer *an, const gcs_gc_report_options *opts)
{
    gcs_gc_report_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!opts)
        opts = &defaults;
    size_t n = gcs_gc_process_count(an);
    int written = 0;
    if (opts->format == GCS_GC_FORMAT_JSON) {
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
            if (wanted(gcs_gc_process_at(an, i), opts))
                total++;
        fputs("{\n  \"trace\": ", f);
        if (opts->trace_name)
            json_str(f, opts->trace_name);
        else
            fputs("null", f);
        fputs(",\n  \"processes\": [\n", f);
        for (size_t i = 0; i < n; i++) {
            const gcs_gc_process *p = gcs_gc_process_at(an, i);
            if (!wanted(p, opts))
                continue;
            written++;
            json_process(f, p, (size_t)written == total);
        }
        fputs("  ]\n}\n", f);
    } else if (opts->format == GCS_GC_FORMAT_CSV) {
        csv_header(f);
        for (size_t i = 0; i < n; i++) {
            const gcs_gc_process *p = gcs_gc_process_at(an, i);
            if (!wanted(p, opts))
                continue;
            written++;
            for (size_t k = 0; k < p->gc_count; k++)
                csv_gc(f, p->pid, &p->gcs[k]);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            const gcs_gc_process *p = gcs_gc_process_at(an, i);
            if (!wanted(p, opts))
                continue;
            written++;
            table_process(f, p, opts->trace_name, !opts->summary_only);
        }
        if (written == 0 && opts->filter_pid)
            fprintf(f, "No GC of process %u in this trace.\n", opts->pid);
        else if (written == 0)
            fprintf(f, "%s\n", gcs_gc_report_no_gcs_line());
    }
    return ferror(f) ? -1 : written;
}
