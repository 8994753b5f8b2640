/*
 * ctf_dump - every event of a trace as one line with what the container
 * delivered, byte for byte, for tests/cli/ctf_native.sh to compare our own
 * CTF reader with babeltrace2's (GCSCOPE_CTF_READER=babeltrace):
 *
 *   ctf_dump TRACE
 *
 *   info freq=F start=T pointer=P
 *   TIMESTAMP pid=P tid=T cpu=C proc=NAME PROVIDER/NAME id=I v=V payload=HEX
 *   ...
 *   end events=N anomalies=A first_anomaly=REASON unknown=U undecodable=D
 *
 * `gcscope events` shows the fields of the runtime's events only (others by
 * their payload size) and times in ms; this shows raw timestamps and every
 * payload byte, so a wrong bit in an event nobody decodes still differs.
 * Exit 0 at the end of the trace, 2 (the error on stderr) otherwise.
 */
#include <stdio.h>

#include "gcscope.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ctf_dump TRACE\n");
        return 1;
    }
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(argv[1], &err);
    gcs_reader *r = src ? gcs_reader_new(src, NULL, &err) : NULL;
    if (!r) {
        fprintf(stderr, "ctf_dump: %s\n", err.reason);
        gcs_source_free(src);
        return 2;
    }
    const gcs_event *ev;
    gcs_status st;
    bool first = true;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        if (first) {
            const gcs_trace_info *info = gcs_reader_info(r);
            printf("info freq=%lld start=%lld pointer=%u\n", (long long)info->clock_frequency,
                   (long long)info->start_ticks, info->pointer_size);
            first = false;
        }
        const gcs_event_type *t = ev->type;
        printf("%lld pid=%u tid=%llu cpu=%u proc=%s %s/%s id=%u v=%u payload=", (long long)ev->timestamp,
               ev->pid, (unsigned long long)ev->tid, ev->processor,
               ev->process_name ? ev->process_name : "-", t->provider ? t->provider : "",
               t->name ? t->name : "", t->event_id, t->version);
        for (uint32_t i = 0; i < ev->payload_size; i++)
            printf("%02x", ev->payload[i]);
        putchar('\n');
    }
    const gcs_reader_stats *s = gcs_reader_get_stats(r);
    printf("end events=%llu anomalies=%llu first_anomaly=%s unknown=%llu undecodable=%llu\n",
           (unsigned long long)s->events, (unsigned long long)s->anomalies, s->first_anomaly,
           (unsigned long long)s->unknown_events, (unsigned long long)s->undecodable_events);
    if (st != GCS_END)
        fprintf(stderr, "ctf_dump: %s (offset %llu)\n", err.reason, (unsigned long long)err.offset);
    gcs_reader_free(r);
    gcs_source_free(src);
    return st == GCS_END ? 0 : 2;
}
