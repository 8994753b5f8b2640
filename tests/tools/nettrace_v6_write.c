/*
 * nettrace_v6_write - writes nettrace V6 files for tests.
 *
 *   nettrace_v6_write [--uncompressed] IN OUT   convert any trace libgcscope
 *                                               reads into V6, same events
 *   nettrace_v6_write --synthetic [--uncompressed] OUT
 *                                               the small synthetic trace of
 *                                               nettrace_v6_writer.h
 *
 * The conversion uses only the public API (gcscope.h): events arrive in
 * timestamp order and are written in that order, all marked IsSorted, with
 * their metadata (provider, id, version, keywords, level, opcode, name, and
 * the schema when it came from the trace), thread rows per (pid, tid), label
 * lists for activity ids, the original sequence numbers, and a sequence
 * point every V6W_EVENTS_PER_SEQUENCE_POINT events. Stacks are not carried
 * (the public API gives stack ids, not their contents): stack ids become 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "tools/nettrace_v6_writer.h"

#define V6W_EVENTS_PER_SEQUENCE_POINT 5000

/* 0 until the public reader (gcs_reader_*) is linked into libgcscope. */
#ifndef V6W_HAVE_READER
#define V6W_HAVE_READER 0
#endif

/* Thread (pid, tid) -> V6 thread index, and each index's last sequence. */
typedef struct conv_thread {
    uint32_t pid;
    uint64_t tid;
    uint64_t index;
    uint32_t last_sequence;
    bool used;
} conv_thread;

typedef struct converter {
    v6w w;
    conv_thread *threads;
    size_t cap, count;
    uint8_t *meta_written; /* by metadata id */
    size_t meta_cap;
    bool have_label;
    uint8_t last_activity[16], last_related[16];
    bool last_has_act, last_has_rel;
    uint32_t last_label;
} converter;

static size_t thread_slot(const converter *cv, uint32_t pid, uint64_t tid)
{
    uint64_t h = (tid * UINT64_C(0x9E3779B97F4A7C15)) ^ ((uint64_t)pid * 0xC2B2AE35u);
    size_t i = (size_t)(h >> 20) & (cv->cap - 1);
    while (cv->threads[i].used && (cv->threads[i].pid != pid || cv->threads[i].tid != tid))
        i = (i + 1) & (cv->cap - 1);
    return i;
}

static conv_thread *thread_of(converter *cv, uint32_t pid, uint64_t tid)
{
    if ((cv->count + 1) * 2 > cv->cap) {
        size_t ncap = cv->cap ? cv->cap * 2 : 256;
        conv_thread *old = cv->threads;
        size_t ocap = cv->cap;
        cv->threads = calloc(ncap, sizeof *cv->threads);
        if (!cv->threads) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        cv->cap = ncap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].used)
                cv->threads[thread_slot(cv, old[i].pid, old[i].tid)] = old[i];
        free(old);
    }
    size_t i = thread_slot(cv, pid, tid);
    conv_thread *t = &cv->threads[i];
    if (!t->used) {
        t->used = true;
        t->pid = pid;
        t->tid = tid;
        t->index = ++cv->count;
        v6w_thread(&cv->w, t->index, pid, tid, NULL);
    }
    return t;
}

static void sequence_point(converter *cv, int64_t ts)
{
    size_t n = 0;
    uint64_t *idx = malloc((cv->count + 1) * sizeof *idx);
    uint32_t *seq = malloc((cv->count + 1) * sizeof *seq);
    for (size_t i = 0; i < cv->cap; i++) {
        if (!cv->threads[i].used)
            continue;
        idx[n] = cv->threads[i].index;
        seq[n] = cv->threads[i].last_sequence;
        n++;
    }
    v6w_sequence_point(&cv->w, (uint64_t)ts, 0, idx, seq, (uint32_t)n);
    free(idx);
    free(seq);
    cv->have_label = false; /* label ids restart after a sequence point */
}

static bool is_zero16(const uint8_t *g)
{
    for (int i = 0; i < 16; i++)
        if (g[i])
            return false;
    return true;
}

#if V6W_HAVE_READER
static int convert(const char *in, const char *out, bool compressed)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_source *src = gcs_source_open_file(in, &err);
    if (!src) {
        fprintf(stderr, "%s: %s\n", in, err.reason);
        return 1;
    }
    gcs_reader *r = gcs_reader_new(src, NULL, &err);
    if (!r) {
        fprintf(stderr, "%s: %s\n", in, err.reason);
        gcs_source_free(src);
        return 1;
    }
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        gcs_reader_free(r);
        gcs_source_free(src);
        return 1;
    }
    converter cv;
    memset(&cv, 0, sizeof cv);
    v6w_init(&cv.w, v6w_to_file, f, compressed);
    const gcs_event *ev;
    gcs_status st;
    bool begun = false;
    uint64_t n = 0;
    int64_t last_ts = 0;
    while ((st = gcs_reader_next(r, &ev, &err)) == GCS_OK) {
        if (!begun) {
            v6w_begin(&cv.w, gcs_reader_info(r));
            begun = true;
        }
        const gcs_event_type *t = ev->type;
        if (t->metadata_id >= cv.meta_cap) {
            size_t nc = cv.meta_cap ? cv.meta_cap : 256;
            while (nc <= t->metadata_id)
                nc *= 2;
            uint8_t *m = realloc(cv.meta_written, nc);
            if (!m || nc > ((size_t)1 << 26)) {
                fprintf(stderr, "metadata id %u too large\n", t->metadata_id);
                free(m);
                return 1;
            }
            memset(m + cv.meta_cap, 0, nc - cv.meta_cap);
            cv.meta_written = m;
            cv.meta_cap = nc;
        }
        if (!cv.meta_written[t->metadata_id]) {
            v6w_metadata(&cv.w, t, t->schema_from_trace);
            cv.meta_written[t->metadata_id] = 1;
        }
        conv_thread *th = thread_of(&cv, ev->pid, ev->tid);
        uint64_t thread_index = th->index;
        conv_thread *cap = thread_of(&cv, ev->pid, ev->capture_tid);
        cap->last_sequence = ev->sequence;
        uint32_t label = 0;
        bool has_act = !is_zero16(ev->activity_id), has_rel = !is_zero16(ev->related_activity_id);
        if (has_act || has_rel) {
            if (cv.have_label && cv.last_has_act == has_act && cv.last_has_rel == has_rel &&
                memcmp(cv.last_activity, ev->activity_id, 16) == 0 &&
                memcmp(cv.last_related, ev->related_activity_id, 16) == 0) {
                label = cv.last_label;
            } else {
                label = v6w_label(&cv.w, has_act ? ev->activity_id : NULL,
                                  has_rel ? ev->related_activity_id : NULL);
                cv.have_label = true;
                cv.last_label = label;
                cv.last_has_act = has_act;
                cv.last_has_rel = has_rel;
                memcpy(cv.last_activity, ev->activity_id, 16);
                memcpy(cv.last_related, ev->related_activity_id, 16);
            }
        }
        v6w_event e;
        memset(&e, 0, sizeof e);
        e.metadata_id = t->metadata_id;
        e.sorted = true; /* written in timestamp order */
        e.sequence = ev->sequence;
        e.thread_index = thread_index;
        e.capture_index = cap->index;
        e.processor = ev->processor;
        e.timestamp = (uint64_t)ev->timestamp;
        e.label_id = label;
        e.payload = ev->payload;
        e.payload_size = ev->payload_size;
        v6w_event_add(&cv.w, &e);
        last_ts = ev->timestamp;
        if (++n % V6W_EVENTS_PER_SEQUENCE_POINT == 0)
            sequence_point(&cv, last_ts);
    }
    int rc = 0;
    if (st < 0) {
        fprintf(stderr, "%s: %s at offset %llu: %s\n", in, gcs_status_name(st),
                (unsigned long long)err.offset, err.reason);
        rc = 1;
    }
    if (!begun) {
        const gcs_trace_info *ti = gcs_reader_info(r);
        gcs_trace_info empty = {0};
        empty.pointer_size = 8;
        empty.clock_frequency = 1;
        v6w_begin(&cv.w, ti ? ti : &empty);
    }
    if (n)
        sequence_point(&cv, last_ts);
    if (!v6w_end(&cv.w) || fclose(f) != 0) {
        fprintf(stderr, "%s: write failed\n", out);
        rc = 1;
    }
    if (cv.w.unencodable_schemas)
        fprintf(stderr, "note: %llu schemas had no V6 encoding and were written without "
                "fields\n", (unsigned long long)cv.w.unencodable_schemas);
    fprintf(stderr, "%llu events written\n", (unsigned long long)n);
    v6w_free(&cv.w);
    free(cv.threads);
    free(cv.meta_written);
    gcs_reader_free(r);
    gcs_source_free(src);
    return rc;
}

#else
static int convert(const char *in, const char *out, bool compressed)
{
    (void)thread_of;
    (void)sequence_point;
    (void)is_zero16;
    fprintf(stderr, "%s -> %s (%s): this build has no public reader yet\n", in, out,
            compressed ? "compressed" : "uncompressed");
    return 1;
}
#endif

static int synthetic(const char *out, bool compressed)
{
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        return 1;
    }
    v6w w;
    v6w_init(&w, v6w_to_file, f, compressed);
    v6w_synthetic(&w);
    bool ok = v6w_end(&w);
    v6w_free(&w);
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "%s: write failed\n", out);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    bool compressed = true, synth = false;
    const char *paths[2];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--uncompressed") == 0)
            compressed = false;
        else if (strcmp(argv[i], "--synthetic") == 0)
            synth = true;
        else if (np < 2)
            paths[np++] = argv[i];
        else
            np = 3;
    }
    if (synth && np == 1)
        return synthetic(paths[0], compressed);
    if (!synth && np == 2)
        return convert(paths[0], paths[1], compressed);
    fprintf(stderr, "usage: %s [--uncompressed] IN OUT\n"
                    "       %s --synthetic [--uncompressed] OUT\n",
            argv[0], argv[0]);
    return 2;
}
