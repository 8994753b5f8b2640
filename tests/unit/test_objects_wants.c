/*
 * gcs_objects_wants as the reader's filter changes nothing the object
 * analysis reports: on every committed fixture and the shared traces
 * (trace_list.h), an analysis fed every event of the trace's first
 * runtime process and one fed only the events the filter lets through
 * write the same report, text and JSON, and the same summary (but for
 * events_seen, the events fed). The filtered reader must also deliver no
 * more events than the analysis uses.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "trace_list.h"

#include "gcscope.h"

typedef struct outcome {
    bool ok;
    uint64_t delivered; /* events gcs_reader_next handed out */
    gcs_objects_summary sum;
    char *text, *json;  /* the reports (free them) */
    size_t text_len, json_len;
} outcome;

static bool is_runtime(const gcs_event *ev)
{
    static const char prefix[] = "Microsoft-Windows-DotNETRuntime";
    return ev->type && ev->type->provider &&
           strncmp(ev->type->provider, prefix, sizeof prefix - 1) == 0;
}

/* The report of `format` in memory (*text, *len: free *text). */
static bool report_of(const gcs_objects *a, gcs_objects_format format, char **text, size_t *len)
{
    FILE *mem = open_memstream(text, len);
    if (!mem)
        return false;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st = gcs_objects_report(a, mem, format, &err);
    return fclose(mem) == 0 && st == GCS_OK;
}

/* The analysis of the first process with a runtime event, fed every event
 * of it (want NULL) or the filter's. */
static void analyse(const uint8_t *data, size_t size,
                    bool (*want)(void *, const gcs_event_type *), outcome *out)
{
    memset(out, 0, sizeof *out);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    CHECK(src != NULL);
    gcs_reader_options opts = {.want = want};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    CHECK(r != NULL);
    gcs_objects *a = gcs_objects_new(&err);
    CHECK(a != NULL);
    if (!src || !r || !a)
        return;
    bool have_pid = false;
    uint32_t pid = 0;
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        out->delivered++;
        if (!have_pid && is_runtime(ev)) {
            have_pid = true;
            pid = ev->pid;
        }
        if (have_pid && ev->pid == pid)
            CHECK_EQ_INT(gcs_objects_feed(a, ev, &err), GCS_OK);
    }
    out->ok = gcs_objects_finish(a, &err) == GCS_OK;
    out->sum = *gcs_objects_get_summary(a);
    CHECK(report_of(a, GCS_OBJECTS_TABLE, &out->text, &out->text_len));
    CHECK(report_of(a, GCS_OBJECTS_JSON, &out->json, &out->json_len));
    gcs_objects_free(a);
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* One trace read both ways; counts in *with_fewer the traces whose
 * filtered read delivered fewer events. */
static void compare_one(size_t i, const unsigned char *data, size_t size, void *ctx)
{
    size_t *with_fewer = ctx;
    int failed_before = check_failed_in_test;
    outcome all, some;
    analyse(data, size, NULL, &all);
    analyse(data, size, gcs_objects_wants, &some);
    CHECK_EQ_INT(all.ok, some.ok);
    CHECK_EQ_U64(all.text_len, some.text_len);
    CHECK(all.text && some.text && strcmp(all.text, some.text) == 0);
    CHECK_EQ_U64(all.json_len, some.json_len);
    CHECK(all.json && some.json && strcmp(all.json, some.json) == 0);
    /* The summary field by field, but for the events fed. */
    CHECK_EQ_U64(all.sum.events_used, some.sum.events_used);
    CHECK(some.sum.events_seen <= all.sum.events_seen);
    /* (Both summaries come from calloc'd analyses: their padding is 0.) */
    all.sum.events_seen = some.sum.events_seen = 0;
    all.sum.trace_end_ms = some.sum.trace_end_ms = 0;
    CHECK(memcmp(&all.sum, &some.sum, sizeof all.sum) == 0);
    /* Filtered, the reader delivers only used events (of any process). */
    CHECK(some.delivered <= all.delivered);
    *with_fewer += some.delivered < all.delivered;
    if (check_failed_in_test != failed_before)
        fprintf(stderr, "  ^ %s\n", reader_traces[i]);
    free(all.text);
    free(all.json);
    free(some.text);
    free(some.json);
}

static void test_filter_changes_no_report(void)
{
    size_t with_fewer = 0;
    size_t read = reader_traces_each(compare_one, &with_fewer);
    /* Most traces carry events the analysis does not use. */
    CHECK(with_fewer * 2 > read);
}

int main(void)
{
    RUN(test_filter_changes_no_report);
    return check_report("test_objects_wants");
}
