/*
 * nettrace_v6_write - writes nettrace V6 files for tests.
 *
 *   nettrace_v6_write [--uncompressed] IN OUT   convert any trace libgcscope
 *                                               reads into V6, same events
 *   nettrace_v6_write --synthetic [--uncompressed] OUT
 *                                               the small synthetic trace of
 *                                               nettrace_v6_writer.h
 *   nettrace_v6_write --alloctick-v3 IN OUT     convert, writing every runtime
 *                                               AllocationTick V4 as V3 (its
 *                                               metadata says version 3, the
 *                                               payload loses the trailing
 *                                               ObjectSize): the trace an older
 *                                               runtime (.NET Core 2.2-3.1) writes
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

/* --alloctick-v3: GC/AllocationTick (runtime id 10) V4 -> V3. V4 is the
 * V3 layout plus ObjectSize (UInt64) at the end (docs: gc-events.md 5.8). */
static void alloctick_to_v3(void *ctx, const gcs_event *ev, gcs_event_type *type,
                            uint32_t *payload_size)
{
    if (type->event_id != 10 || type->version != 4 ||
        strcmp(type->provider, "Microsoft-Windows-DotNETRuntime") != 0)
        return;
    type->version = 3;
    if (type->schema_from_trace && type->field_count > 0 &&
        strcmp(type->fields[type->field_count - 1].name, "ObjectSize") == 0)
        type->field_count--;
    if (*payload_size >= 8) {
        *payload_size -= 8;
        (*(uint64_t *)ctx)++;
    }
}

static int convert(const char *in, const char *out, bool compressed, bool alloctick_v3)
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
    v6w w;
    v6w_init(&w, v6w_to_file, f, compressed);
    uint64_t events = 0, ticks_rewritten = 0;
    if (alloctick_v3) {
        w.rewrite = alloctick_to_v3;
        w.rewrite_ctx = &ticks_rewritten;
    }
    gcs_status st = v6w_convert(r, &w, &events, &err);
    int rc = 0;
    if (st < 0) {
        fprintf(stderr, "%s: %s at offset %llu: %s\n", in, gcs_status_name(st),
                (unsigned long long)err.offset, err.reason);
        rc = 1;
    }
    if (fclose(f) != 0 || w.failed) {
        fprintf(stderr, "%s: write failed\n", out);
        rc = 1;
    }
    if (w.unencodable_schemas)
        fprintf(stderr, "note: %llu schemas had no V6 encoding and were written without "
                "fields\n", (unsigned long long)w.unencodable_schemas);
    if (w.unmatched_names)
        fprintf(stderr, "note: %llu event names could not be stored so that they read back "
                "the same\n", (unsigned long long)w.unmatched_names);
    fprintf(stderr, "%llu events written\n", (unsigned long long)events);
    if (alloctick_v3)
        fprintf(stderr, "%llu AllocationTick events written as V3\n",
                (unsigned long long)ticks_rewritten);
    v6w_free(&w);
    gcs_reader_free(r);
    gcs_source_free(src);
    return rc;
}

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
    bool compressed = true, synth = false, alloctick_v3 = false;
    const char *paths[2];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--uncompressed") == 0)
            compressed = false;
        else if (strcmp(argv[i], "--synthetic") == 0)
            synth = true;
        else if (strcmp(argv[i], "--alloctick-v3") == 0)
            alloctick_v3 = true;
        else if (np < 2)
            paths[np++] = argv[i];
        else
            np = 3;
    }
    if (synth && np == 1)
        return synthetic(paths[0], compressed);
    if (!synth && np == 2)
        return convert(paths[0], paths[1], compressed, alloctick_v3);
    fprintf(stderr, "usage: %s [--uncompressed] [--alloctick-v3] IN OUT\n"
                    "       %s --synthetic [--uncompressed] OUT\n",
            argv[0], argv[0]);
    return 2;
}
