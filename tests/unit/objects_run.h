/*
 * objects_run.h - the object analysis of a trace in memory, for the tests
 * that compare two ways of running it (test_objects_wants: with the
 * reader's filter and without; test_objects_stretches: the tracker with
 * stretches and without): its reports, text and JSON, and its summary.
 */
#ifndef GCS_TESTS_OBJECTS_RUN_H
#define GCS_TESTS_OBJECTS_RUN_H

#include <stdio.h>
#include <stdlib.h>

#include "analysis/objects/object_tracker_internal.h"
#include "check.h"

#include "gcscope.h"

typedef struct objects_outcome {
    bool ok;
    uint64_t delivered; /* events gcs_reader_next handed out */
    gcs_objects_summary sum;
    char *text, *json;  /* the reports (objects_outcome_free) */
    size_t text_len, json_len;
} objects_outcome;

static inline bool objects_run_is_runtime(const gcs_event *ev)
{
    static const char prefix[] = "Microsoft-Windows-DotNETRuntime";
    return ev->type && ev->type->provider &&
           strncmp(ev->type->provider, prefix, sizeof prefix - 1) == 0;
}

/* The report of `format` in memory (*text, *len: free *text). */
static inline bool objects_run_report(const gcs_objects *a, gcs_objects_format format, char **text,
                                      size_t *len)
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
 * of it the reader delivers with `want` (NULL: all), its tracker created
 * with gcs_objtrack_stretches = `stretches`. */
static inline void objects_run(const uint8_t *data, size_t size,
                               bool (*want)(void *, const gcs_event_type *), bool stretches,
                               objects_outcome *out)
{
    memset(out, 0, sizeof *out);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_from_memory(data, size, &err);
    CHECK(src != NULL);
    gcs_reader_options opts = {.want = want};
    gcs_reader *r = gcs_reader_new(src, &opts, &err);
    CHECK(r != NULL);
    gcs_objtrack_stretches = stretches;
    gcs_objects *a = gcs_objects_new(&err);
    gcs_objtrack_stretches = true;
    CHECK(a != NULL);
    if (!src || !r || !a)
        return;
    bool have_pid = false;
    uint32_t pid = 0;
    const gcs_event *ev;
    while (gcs_reader_next(r, &ev, &err) == GCS_OK) {
        out->delivered++;
        if (!have_pid && objects_run_is_runtime(ev)) {
            have_pid = true;
            pid = ev->pid;
        }
        if (have_pid && ev->pid == pid)
            CHECK_EQ_INT(gcs_objects_feed(a, ev, &err), GCS_OK);
    }
    out->ok = gcs_objects_finish(a, &err) == GCS_OK;
    out->sum = *gcs_objects_get_summary(a);
    CHECK(objects_run_report(a, GCS_OBJECTS_TABLE, &out->text, &out->text_len));
    CHECK(objects_run_report(a, GCS_OBJECTS_JSON, &out->json, &out->json_len));
    gcs_objects_free(a);
    gcs_reader_free(r);
    gcs_source_free(src);
}

/* The two outcomes' reports are the same, text and JSON. */
static inline void objects_run_same_reports(const objects_outcome *a, const objects_outcome *b)
{
    CHECK_EQ_INT(a->ok, b->ok);
    CHECK_EQ_U64(a->text_len, b->text_len);
    CHECK(a->text && b->text && strcmp(a->text, b->text) == 0);
    CHECK_EQ_U64(a->json_len, b->json_len);
    CHECK(a->json && b->json && strcmp(a->json, b->json) == 0);
}

static inline void objects_outcome_free(objects_outcome *o)
{
    free(o->text);
    free(o->json);
}

#endif
