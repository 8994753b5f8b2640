/*
 * A live source that goes quiet: the reader holds back the events it may
 * not order yet (after the last IsSorted mark), answers GCS_AGAIN, and
 * gcs_reader_release_pending hands them over, so a live view shows the
 * last GCs without waiting for the process to write again.
 */
#include "check.h"
#include "copy_source.h"

#include "gcscope.h"

static uint64_t count_until(gcs_reader *r, gcs_status *last)
{
    const gcs_event *ev;
    gcs_error err;
    uint64_t n = 0;
    while ((*last = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        n++;
    return n;
}

static void test_release_pending_after_idle(void)
{
    size_t size = 0;
    uint8_t *data = check_read_file(TEST_DATA("wks-concurrent.nettrace"), &size);
    if (!data)
        SKIP("fixture missing");
    CHECK(size > 1000000);

    /* What the first 900 KB hold, as a file cut there reports it. */
    size_t cut = 900000;
    gcs_error err;
    gcs_source *plain = gcs_source_from_memory(data, cut, &err);
    gcs_reader *pr = gcs_reader_new(plain, NULL, &err);
    gcs_status st;
    uint64_t in_cut = count_until(pr, &st);
    CHECK_EQ_INT(st, GCS_ERR_TRUNCATED);
    gcs_reader_free(pr);
    gcs_source_free(plain);

    /* Gives everything it has, then "no data yet" forever. */
    copy_src q = {.data = data, .size = cut, .at_end = GCS_AGAIN};
    gcs_source *src = gcs_source_custom(copy_src_read, NULL, &q, &err);
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    uint64_t before = count_until(r, &st);
    CHECK_EQ_INT(st, GCS_AGAIN);
    CHECK(before < in_cut); /* some were held back for ordering */
    gcs_reader_release_pending(r);
    uint64_t after = count_until(r, &st);
    CHECK_EQ_INT(st, GCS_AGAIN);
    CHECK(after > 0);
    /* The unit cut in half is not delivered: everything else is. */
    CHECK_EQ_U64(before + after, in_cut);
    CHECK_EQ_U64(gcs_reader_get_stats(r)->idle_releases, 1);
    /* Nothing left: a second call changes nothing. */
    gcs_reader_release_pending(r);
    CHECK_EQ_U64(gcs_reader_get_stats(r)->idle_releases, 1);

    /* The rest arrives: the stream goes on in order, to its end. */
    q.size = size;
    const gcs_event *ev;
    int64_t last_ts = INT64_MIN;
    bool ordered_after_release = true;
    uint64_t rest = 0;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK || st == GCS_AGAIN) {
        if (st == GCS_AGAIN) {
            if (q.pos == q.size)
                break;
            continue;
        }
        if (ev->timestamp < last_ts)
            ordered_after_release = false;
        last_ts = ev->timestamp;
        rest++;
    }
    CHECK(ordered_after_release);
    CHECK(rest > 0);
    gcs_reader_free(r);
    gcs_source_free(src);
    free(data);
}

int main(void)
{
    RUN(test_release_pending_after_idle);
    return check_report("test_reader_live");
}
