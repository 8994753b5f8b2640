/*
 * Harness: the archive path of the reader (io/archive.c under
 * pipeline/reader.c) on any bytes; the seeds are zips, tars and gzip, xz,
 * zstd, bzip2 streams of trace prefixes (make-corpus.sh), so that mutations
 * land in archive headers, compressed data and the traces inside.
 *
 * The same bytes are read twice: from a memory source (viewed in place)
 * and from a custom source that gives at most
 * 1 + 37 * (size % 29) bytes a read (the stream assembles the fixed
 * pieces libarchive is lent from many small reads; tests/unit/
 * copy_source.h). Both reads must end alike:
 * status, error offset and reason, events, bytes read, archive kind and
 * member; a memory source never answers AGAIN; every error has a reason;
 * a member's name is set exactly when the input was an archive. The
 * member asked for (options.archive_member) depends on the input's size:
 * none, a name the seeds use, or one no seed has.
 */
#include "fuzz_common.h"

#include <string.h>

#include "gcscope.h"
#include "unit/copy_source.h"

typedef struct outcome {
    gcs_status status;
    uint64_t offset, events, bytes;
    char reason[256];
    bool archive;
    char kind[16], member[256];
} outcome;

static outcome read_all(gcs_source *src, const gcs_reader_options *opts)
{
    outcome o;
    memset(&o, 0, sizeof o);
    gcs_error err;
    gcs_error_clear(&err);
    gcs_reader *r = gcs_reader_new(src, opts, &err);
    FUZZ_REQUIRE(r);
    const gcs_event *ev;
    while ((o.status = gcs_reader_next(r, &ev, &err)) == GCS_OK)
        o.events++;
    FUZZ_REQUIRE(o.status != GCS_AGAIN);
    if (o.status < 0) {
        FUZZ_REQUIRE(err.reason[0] != 0);
        o.offset = err.offset;
        memcpy(o.reason, err.reason, sizeof o.reason);
    }
    o.bytes = gcs_reader_get_stats(r)->bytes_read;
    const char *kind = NULL, *member = NULL;
    o.archive = gcs_reader_archive(r, &kind, &member);
    if (o.archive) {
        FUZZ_REQUIRE(kind && kind[0] && member);
        snprintf(o.kind, sizeof o.kind, "%s", kind);
        snprintf(o.member, sizeof o.member, "%s", member);
    }
    gcs_reader_free(r);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const members[3] = {NULL, "t.nettrace", "absent.etl"};
    gcs_reader_options opts = {.archive_member = members[size % 3]};
    gcs_error err;
    gcs_source *mem = gcs_source_from_memory(data, size, &err);
    FUZZ_REQUIRE(mem);
    outcome a = read_all(mem, &opts);
    gcs_source_free(mem);

    copy_src c = {.data = data, .size = size, .max_chunk = 1 + 37 * (size % 29), .at_end = GCS_END};
    gcs_source *src = gcs_source_custom(copy_src_read, NULL, &c, &err);
    FUZZ_REQUIRE(src);
    outcome b = read_all(src, &opts);
    gcs_source_free(src);

    FUZZ_REQUIRE(a.status == b.status);
    FUZZ_REQUIRE(a.events == b.events);
    FUZZ_REQUIRE(a.bytes == b.bytes);
    FUZZ_REQUIRE(a.archive == b.archive);
    FUZZ_REQUIRE(!strcmp(a.kind, b.kind) && !strcmp(a.member, b.member));
    if (a.status < 0) {
        FUZZ_REQUIRE(a.offset == b.offset);
        FUZZ_REQUIRE(!strcmp(a.reason, b.reason));
    }
    return 0;
}
