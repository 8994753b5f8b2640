/*
 * gcs_objects_wants as the reader's filter changes nothing the object
 * analysis reports: on every committed fixture and the shared traces
 * (trace_list.h), an analysis fed every event of the trace's first
 * runtime process and one fed only the events the filter lets through
 * write the same report, text and JSON, and the same summary (but for
 * events_seen, the events fed). The filtered reader must also deliver no
 * more events than the analysis uses.
 */
#include "objects_run.h"
#include "trace_list.h"

/* One trace read both ways; counts in *with_fewer the traces whose
 * filtered read delivered fewer events. */
static void compare_one(size_t i, const unsigned char *data, size_t size, void *ctx)
{
    size_t *with_fewer = ctx;
    int failed_before = check_failed_in_test;
    objects_outcome all, some;
    objects_run(data, size, NULL, true, &all);
    objects_run(data, size, gcs_objects_wants, true, &some);
    objects_run_same_reports(&all, &some);
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
    objects_outcome_free(&all);
    objects_outcome_free(&some);
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
