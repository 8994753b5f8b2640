/*
 * Harness: the ELF symbol reader (gcs_symbols_parse) on any bytes, then
 * every type it kept looked up, and an object analysis of a NativeAOT-like
 * process named from it (the inference of the load address walks every
 * type symbol).
 * What must hold: a failure has a reason and a negative status; a success
 * keeps its types sorted by address, each found again by its address, with
 * a non-empty name; the analysis finishes.
 */
#include "fuzz_common.h"

#include <string.h>

#include "gcscope.h"

static void put(uint8_t *p, size_t *n, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[(*n)++] = (uint8_t)(v >> (8 * i));
}

/* An AllocationTick V4 of type_id whose name is "NULL". */
static void feed_tick(gcs_objects *an, uint64_t type_id, uint64_t address)
{
    static gcs_event_type type = {.provider = "Microsoft-Windows-DotNETRuntime",
                                  .event_id = 10, .version = 4};
    uint8_t p[128];
    size_t n = 0;
    put(p, &n, 100000, 4), put(p, &n, 0, 4), put(p, &n, 0, 2), put(p, &n, 100000, 8);
    put(p, &n, type_id, 8);
    const char *name = "NULL";
    for (; *name; name++)
        put(p, &n, (uint8_t)*name, 2);
    put(p, &n, 0, 2), put(p, &n, 0, 4), put(p, &n, address, 8), put(p, &n, 32, 8);
    gcs_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = &type;
    ev.payload = p;
    ev.payload_size = (uint32_t)n;
    ev.pointer_size = 8;
    gcs_error err;
    FUZZ_REQUIRE(gcs_objects_feed(an, &ev, &err) == GCS_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcs_error err;
    gcs_error_clear(&err);
    gcs_symbols *s = gcs_symbols_parse(data, size, &err);
    if (!s) {
        FUZZ_REQUIRE(err.status < 0 && err.reason[0]);
        return 0;
    }
    size_t n = gcs_symbols_type_count(s);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = gcs_symbols_type_address(s, i);
        FUZZ_REQUIRE(i == 0 || gcs_symbols_type_address(s, i - 1) < a);
        const char *name = gcs_symbols_type_name(s, a);
        FUZZ_REQUIRE(name && name[0]);
    }
    FUZZ_REQUIRE(strlen(gcs_symbols_build_id(s)) % 2 == 0);
    gcs_objects *an = gcs_objects_new(&err);
    FUZZ_REQUIRE(an);
    gcs_objects_set_symbols(an, s);
    const uint64_t base = 0x560000000000ull;
    for (size_t i = 0; i < n && i < 4; i++)
        feed_tick(an, base + gcs_symbols_type_address(s, i), 0x7f0000000000ull + 64 * i);
    FUZZ_REQUIRE(gcs_objects_finish(an, &err) == GCS_OK);
    gcs_objects_report(an, fuzz_sink(), GCS_OBJECTS_TABLE, &err);
    gcs_objects_free(an);
    gcs_symbols_free(s);
    return 0;
}
