/*
 * gcscope info TRACE [--format text|json]
 *
 * What the trace is (container, version, pointer size, process, clock,
 * start, duration) and what is in it (events per provider/event name, lost,
 * unknown and undecodable events).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

typedef struct name_count {
    char *name;
    uint64_t count;
} name_count;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const name_count *)a)->name, ((const name_count *)b)->name);
}

/* Counts per "Provider/Name" (types that share a name are merged), sorted
 * by name. */
static name_count *collect_names(const gcs_reader *r, size_t *n_out)
{
    size_t n_types = 0;
    while (gcs_reader_event_type(r, (uint32_t)n_types))
        n_types++;
    name_count *list = calloc(n_types ? n_types : 1, sizeof *list);
    size_t n = 0;
    if (!list)
        return NULL;
    for (size_t i = 0; i < n_types; i++) {
        const gcs_event_type *t = gcs_reader_event_type(r, (uint32_t)i);
        if (t->count == 0)
            continue;
        size_t len = strlen(t->provider) + strlen(t->name) + 2;
        char *name = malloc(len);
        if (!name)
            continue;
        snprintf(name, len, "%s/%s", t->provider, t->name);
        list[n].name = name;
        list[n].count = t->count;
        n++;
    }
    qsort(list, n, sizeof *list, cmp_name);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w > 0 && !strcmp(list[w - 1].name, list[i].name)) {
            list[w - 1].count += list[i].count;
            free(list[i].name);
        } else {
            list[w++] = list[i];
        }
    }
    *n_out = w;
    return list;
}

static void print_start(FILE *f, const gcs_trace_info *in)
{
    fprintf(f, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", in->start_year, in->start_month,
            in->start_day, in->start_hour, in->start_minute, in->start_second,
            in->start_millisecond);
}

enum { OPT_FORMAT = 1, OPT_MEMBER };

static const cli_option info_options[] = {
    {OPT_FORMAT, "format", 0, "text|json", "output format (default text)"},
    CLI_MEMBER_OPTION(OPT_MEMBER),
    {0},
};

static int run_info(int argc, char **argv);

const cli_command cmd_info = {
    .name = "info",
    .operands = "TRACE",
    .min_operands = 1,
    .max_operands = 1,
    .summary = "what a trace is and which events it holds",
    .options = info_options,
    .notes = CLI_TRACE_NOTE,
    .run = run_info,
};

static int run_info(int argc, char **argv)
{
    cli_format fmt = CLI_FMT_TEXT;
    gcs_reader_options ropts = {0};
    cli_args a;
    cli_args_init(&a, &cmd_info, argc, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        switch (id) {
        case OPT_FORMAT:
            if (!cli_parse_format(a.value, false, &fmt))
                return cli_usage_error(&cmd_info, "--format takes text or json");
            break;
        case OPT_MEMBER:
            ropts.archive_member = a.value;
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    const char *path = a.operand[0];
    cli_trace tr;
    if (!cli_open_trace_with(&tr, path, &ropts))
        return CLI_FAILED;

    /* Counting needs no order: scan instead of reading event by event. */
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    while ((st = gcs_reader_scan(tr.reader, &err)) == GCS_AGAIN)
        ;
    const gcs_trace_info *in = gcs_reader_info(tr.reader);
    if (!in && st < 0) {
        /* Not a trace, or not one we read: one line is all there is to say. */
        cli_report_error(path, &err);
        cli_close_trace(&tr);
        return CLI_FAILED;
    }
    const gcs_reader_stats *stats = gcs_reader_get_stats(tr.reader);
    size_t n_names = 0;
    name_count *names = collect_names(tr.reader, &n_names);
    double duration_ms = 0;
    if (in && in->clock_frequency > 0 && stats->events > 0)
        duration_ms = (double)(int64_t)((uint64_t)stats->last_timestamp - (uint64_t)in->start_ticks) *
                      1000.0 / (double)in->clock_frequency;

    const char *archive_kind = NULL, *member = NULL;
    if (fmt == CLI_FMT_JSON) {
        printf("{\"file\":");
        cli_json_string(stdout, path);
        if (gcs_reader_archive(tr.reader, &archive_kind, &member)) {
            printf(",\"archive\":\"%s\",\"member\":", archive_kind);
            cli_json_string(stdout, member);
        }
        if (in) {
            printf(",\"format\":\"%s\",\"format_version\":%u,\"pointer_size\":%u,\"pid\":%u,"
                   "\"cpu_count\":%u,\"clock_frequency\":%" PRId64 ",\"start_utc\":\"",
                   gcs_format_name(in->format), in->format_version, in->pointer_size, in->pid,
                   in->cpu_count, in->clock_frequency);
            print_start(stdout, in);
            printf("\",\"duration_ms\":%.3f", duration_ms);
        }
        printf(",\"events\":%" PRIu64 ",\"lost_events\":%" PRIu64 ",\"unknown_events\":%" PRIu64
               ",\"undecodable_events\":%" PRIu64 ",\"sequence_points\":%" PRIu64
               ",\"blocks\":%" PRIu64 ",\"stacks\":%" PRIu64 ",\"metadata\":%" PRIu64
               ",\"sort_overflows\":%" PRIu64 ",\"anomalies\":%" PRIu64 ",\"bytes\":%" PRIu64
               ",\"counts\":{",
               stats->events, stats->lost_events, stats->unknown_events, stats->undecodable_events,
               stats->sequence_points, stats->blocks, stats->stacks, stats->metadata,
               stats->sort_overflows, stats->anomalies, stats->bytes_read);
        for (size_t i = 0; i < n_names; i++) {
            if (i)
                putchar(',');
            cli_json_string(stdout, names[i].name);
            printf(":%" PRIu64, names[i].count);
        }
        printf("}");
        if (st < 0) {
            printf(",\"error\":{\"status\":\"%s\",\"offset\":%llu,\"reason\":",
                   gcs_status_name(st), (unsigned long long)err.offset);
            cli_json_string(stdout, err.reason);
            printf("}");
        }
        printf("}\n");
    } else {
        printf("file:             %s", path);
        if (gcs_reader_archive(tr.reader, &archive_kind, &member)) {
            if (member[0])
                printf(" (%s member %s)", archive_kind, member);
            else
                printf(" (%s)", archive_kind);
        }
        putchar('\n');
        if (in) {
            printf("format:           %s version %u\n", gcs_format_name(in->format),
                   in->format_version);
            printf("pointer size:     %u\n", in->pointer_size);
            printf("process id:       %u\n", in->pid);
            printf("processors:       %u\n", in->cpu_count);
            printf("clock frequency:  %" PRId64 " ticks/s\n", in->clock_frequency);
            printf("trace start:      ");
            print_start(stdout, in);
            printf("\nduration:         %.3f ms (trace start to last event)\n", duration_ms);
        }
        printf("events:           %" PRIu64 "\n", stats->events);
        printf("lost events:      %" PRIu64 "\n", stats->lost_events);
        printf("unknown events:   %" PRIu64 "\n", stats->unknown_events);
        printf("undecodable:      %" PRIu64 "\n", stats->undecodable_events);
        printf("blocks:           %" PRIu64 " (%" PRIu64 " sequence points, %" PRIu64
               " stacks, %" PRIu64 " metadata rows)\n",
               stats->blocks, stats->sequence_points, stats->stacks, stats->metadata);
        if (stats->anomalies)
            printf("format anomalies: %" PRIu64 " (first at byte %" PRIu64 ": %s)\n",
                   stats->anomalies, stats->first_anomaly_offset, stats->first_anomaly);
        if (stats->sort_overflows)
            printf("sort overflows:   %" PRIu64 " (order not guaranteed across them)\n",
                   stats->sort_overflows);
        printf("\n%12s  %s\n", "count", "provider/event");
        for (size_t i = 0; i < n_names; i++)
            printf("%12" PRIu64 "  %s\n", names[i].count, names[i].name);
    }
    for (size_t i = 0; i < n_names; i++)
        free(names[i].name);
    free(names);
    int rc = CLI_OK;
    if (st < 0) {
        cli_report_error(path, &err);
        rc = CLI_FAILED;
    }
    cli_close_trace(&tr);
    return rc;
}
