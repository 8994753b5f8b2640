/*
 * etl_write - writes Windows ETW log files (.etl) for tests and the bench.
 *
 *   etl_write [OPTIONS] IN OUT          every event of any trace libgcscope
 *                                       reads, as EVENT_HEADER records
 *   etl_write --synthetic [OPTIONS] OUT the GC trace of etl_writer.h
 *
 * Options: --cpus N (4), --header-cpus N (the processors the header says:
 * more than --cpus leaves some idle), --buffer-size BYTES (65536), --pointer-size 4
 * (a 32-bit log; IN's pointer size otherwise), --events-lost N,
 * --buffers-lost N (the logfile header's counters), --max-mb N (stop
 * before the file passes N MiB), --scale-pauses F (every GC pause of IN
 * F times as long: SuspendEEBegin for GC to RestartEEEnd, the events in
 * it stretched, the later ones shifted; tests/cli/compare_doubled.sh);
 * with --synthetic: --gcs N (100),
 * --handles N (handle events per GC, 200), --threads N (3), --cut-every N
 * (every Nth handle event cut at its buffer's end).
 *
 * The layout is docs/format-etl.md's (etl_writer.h). The bench
 * (scripts/bench-etl.sh) makes its large file with --synthetic --max-mb.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcscope.h"
#include "tools/etl_writer.h"

static int usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--cpus N] [--header-cpus N] [--buffer-size B] [--pointer-size 4] [--events-lost N]\n"
            "          [--buffers-lost N] [--max-mb N] [--scale-pauses F] IN OUT\n"
            "       %s --synthetic [same options] [--gcs N] [--handles N] [--threads N]\n"
            "          [--cut-every N] OUT\n",
            argv0, argv0);
    return 2;
}

static int convert(const char *in, etlw *w, uint64_t max_bytes)
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
    gcs_status st = etlw_convert(r, w, max_bytes, &err);
    int rc = 0;
    if (st < 0) {
        fprintf(stderr, "%s: %s at offset %llu: %s\n", in, gcs_status_name(st),
                (unsigned long long)err.offset, err.reason);
        rc = 1;
    }
    gcs_reader_free(r);
    gcs_source_free(src);
    return rc;
}

int main(int argc, char **argv)
{
    etlw w;
    FILE *f = NULL;
    etlw_init(&w, etlw_to_file, NULL);
    etlw_synthetic_opts so = {100, 200, 3, 0, 0, 0, false};
    bool synth = false;
    uint64_t max_mb = 0;
    const char *paths[2];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--synthetic") == 0) {
            synth = true;
            continue;
        }
        if (a[0] == '-' && a[1] == '-') {
            if (i + 1 >= argc)
                return usage(argv[0]);
            if (!strcmp(a, "--scale-pauses")) {
                char *end;
                w.pause_factor = strtod(argv[++i], &end);
                if (*end || !(w.pause_factor > 0 && w.pause_factor <= 1000))
                    return usage(argv[0]);
                continue;
            }
            unsigned long long v = strtoull(argv[++i], NULL, 0);
            if (!strcmp(a, "--cpus")) w.cpus = (uint32_t)v;
            else if (!strcmp(a, "--buffer-size")) w.buffer_size = (uint32_t)v;
            else if (!strcmp(a, "--header-cpus")) w.header_cpus = (uint32_t)v;
            else if (!strcmp(a, "--pointer-size")) w.pointer_size = (uint32_t)v;
            else if (!strcmp(a, "--events-lost")) w.events_lost = (uint32_t)v;
            else if (!strcmp(a, "--buffers-lost")) w.buffers_lost = (uint32_t)v;
            else if (!strcmp(a, "--max-mb")) max_mb = v;
            else if (!strcmp(a, "--gcs")) so.gcs = (uint32_t)v;
            else if (!strcmp(a, "--handles")) so.handles_per_gc = (uint32_t)v;
            else if (!strcmp(a, "--threads")) so.threads = (uint32_t)v;
            else if (!strcmp(a, "--cut-every")) so.cut_every = (uint32_t)v;
            else return usage(argv[0]);
            continue;
        }
        if (np == 2)
            return usage(argv[0]);
        paths[np++] = a;
    }
    if (np != (synth ? 1 : 2))
        return usage(argv[0]);
    const char *out = paths[np - 1];
    f = fopen(out, "wb");
    if (!f) {
        perror(out);
        return 1;
    }
    w.ctx = f;
    int rc = 0;
    if (synth) {
        so.max_bytes = max_mb << 20;
        if (max_mb)
            so.gcs = UINT32_MAX;
        etlw_synthetic_counts n;
        if (!etlw_synthetic(&w, &so, &n)) {
            fprintf(stderr, "%s: cannot write (bad settings or write failed)\n", out);
            rc = 1;
        }
        fprintf(stderr, "%llu events (%llu GCs, %llu handle events), %llu records cut\n",
                (unsigned long long)n.events, (unsigned long long)n.gcs,
                (unsigned long long)n.handles, (unsigned long long)n.cut);
    } else {
        rc = convert(paths[0], &w, max_mb << 20);
        fprintf(stderr, "%llu events written\n", (unsigned long long)w.events);
    }
    etlw_free(&w);
    if (fclose(f) != 0 || w.failed) {
        fprintf(stderr, "%s: write failed\n", out);
        rc = 1;
    }
    return rc;
}
