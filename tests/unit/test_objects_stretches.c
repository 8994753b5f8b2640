/*
 * The tracker's stretches (gcs_objtrack_stretches: a GC's ranges put in
 * order without a sort when no two overlap, applied without even that
 * when they stay in place) change nothing the object analysis reports on
 * real traces: on every committed fixture and the shared traces
 * (trace_list.h), the analysis of the trace's first runtime process with
 * stretches and without writes the same report, text and JSON, and the
 * same summary. The fixtures recorded for it (objects-bgc: background
 * GCs' survivors; objects-movement: compacting GCs' moves) must be among
 * the traces read, with ranges applied.
 */
#include "objects_run.h"
#include "trace_list.h"

typedef struct tally {
    size_t with_background_ranges, with_foreground_ranges;
} tally;

static void compare_one(size_t i, const unsigned char *data, size_t size, void *ctx)
{
    tally *t = ctx;
    int failed_before = check_failed_in_test;
    objects_outcome plain, by_stretches;
    objects_run(data, size, gcs_objects_wants, false, &plain);
    objects_run(data, size, gcs_objects_wants, true, &by_stretches);
    objects_run_same_reports(&plain, &by_stretches);
    /* (Both summaries come from calloc'd analyses: their padding is 0.) */
    CHECK(memcmp(&plain.sum, &by_stretches.sum, sizeof plain.sum) == 0);
    t->with_background_ranges += by_stretches.sum.background_gcs_with_ranges > 0;
    t->with_foreground_ranges += by_stretches.sum.gcs_with_ranges > 0;
    if (check_failed_in_test != failed_before)
        fprintf(stderr, "  ^ %s\n", reader_traces[i]);
    objects_outcome_free(&plain);
    objects_outcome_free(&by_stretches);
}

static void test_stretches_change_no_report(void)
{
    tally t = {0, 0};
    reader_traces_each(compare_one, &t);
    /* objects-bgc and objects-bgc-server; objects-movement and more. */
    CHECK(t.with_background_ranges >= 2);
    CHECK(t.with_foreground_ranges >= 3);
}

int main(void)
{
    RUN(test_stretches_change_no_report);
    return check_report("test_objects_stretches");
}
