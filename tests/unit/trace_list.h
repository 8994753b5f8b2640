/*
 * trace_list.h - the real traces the reader tests go over: every
 * committed nettrace fixture (V5 and V6, sample-profiler rows included;
 * not server-attach-patched, server-attach with two payload fields
 * patched for test_gc_oracle) and, when ../shared is there, PerfView's
 * EventPipe and ETL traces. A test skips the files that are absent and
 * checks it saw the committed ones.
 */
#ifndef GCS_TESTS_TRACE_LIST_H
#define GCS_TESTS_TRACE_LIST_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static const char *const reader_traces[] = {
    "tests/data/wks-nonconcurrent.nettrace",
    "tests/data/wks-concurrent.nettrace",
    "tests/data/server.nettrace",
    "tests/data/objects-movement.nettrace",
    "tests/data/objects-bgc.nettrace",        /* background GCs' surviving ranges */
    "tests/data/objects-bgc-server.nettrace", /* the same, server GC */
    "tests/data/wks-service.nettrace",
    "tests/data/wks-segments.nettrace", /* the segments GC (libclrgc.so), not regions */
    "tests/data/dotnet-trace-default.nettrace",    /* dotnet-trace: CPU samples, rundown */
    "tests/data/dotnet-trace-gc-verbose.nettrace", /* dotnet-trace --profile gc-verbose */
    "tests/data/server-attach.nettrace", /* attached to a running process */
    "tests/data/objects-allocsampled.nettrace",
    "tests/data/gen0size-small.nettrace",
    "tests/data/probe-net10.nettrace",
    "tests/data/cpu-sampled.nettrace", /* sample-profiler rows: thread id only */
    "tests/data/net8-server.nettrace",       /* .NET 8 */
    "tests/data/net9-server-datas.nettrace", /* .NET 9, DATAS */
    "tests/data/net31-concurrent.nettrace",  /* .NET Core 3.1: older event versions */
    "tests/data/net31-server.nettrace",
    "tests/data/net10-aot.nettrace", /* NativeAOT: ModuleLoad V3, no type names */
    "tests/data/net9-aot.nettrace",  /* NativeAOT .NET 9: no module event, server GC */
    "tests/data/v6/synthetic.nettrace",              /* V6: thread table, label lists */
    "tests/data/v6/synthetic-uncompressed.nettrace", /* V6 uncompressed rows */
    "../shared/traces/perfview/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf",
    "../shared/traces/perfview/eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
    "../shared/traces/perfview/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
};

/* Committed ones among them. */
#define READER_TRACES_COMMITTED 23

/* The bytes of reader_traces[i] (free them), or NULL when it is absent. */
static inline unsigned char *reader_trace(size_t i, size_t *size)
{
    *size = 0;
    return check_file_exists(reader_traces[i]) ? check_read_file(reader_traces[i], size) : NULL;
}

/* fn(i, data, size, ctx) for every one of reader_traces present (its bytes
 * freed after); checks that every committed one was there. Returns how
 * many were read. */
static inline size_t reader_traces_each(void (*fn)(size_t i, const unsigned char *data,
                                                   size_t size, void *ctx),
                                        void *ctx)
{
    size_t read = 0, committed = 0;
    for (size_t i = 0; i < sizeof reader_traces / sizeof *reader_traces; i++) {
        size_t size;
        unsigned char *data = reader_trace(i, &size);
        if (!data)
            continue;
        read++;
        committed += i < READER_TRACES_COMMITTED;
        fn(i, data, size, ctx);
        free(data);
    }
    CHECK_EQ_U64(committed, READER_TRACES_COMMITTED);
    if (read < sizeof reader_traces / sizeof *reader_traces)
        printf("  (%zu of %zu traces: the shared ones are absent)\n", read,
               sizeof reader_traces / sizeof *reader_traces);
    return read;
}

#endif
