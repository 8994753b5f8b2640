/*
 * Harness: the parts of the CTF path that are ours and see untrusted
 * values without babeltrace2 (format/ctf/ctf_names.c). The input is split
 * at its first 0 byte: before it, an LTTng event name, split into
 * provider, symbol and version and then looked up in the runtime manifest
 * by symbol (decode/manifest.c); after it, a string field's bytes, re-encoded
 * to UTF-16 as the runtime's payloads hold them. Invariants: a runtime
 * name's provider is one of the runtime's, the symbol fits and holds no
 * ':'; the UTF-16 output is even-sized, ends with 0x0000, and has at most
 * one unit per input byte plus the terminator.
 * The whole input is also a metadata file for gcs_ctf_check_metadata
 * (format/ctf/ctf_metadata.c), which babeltrace2 never sees unchecked:
 * a failure names the file and an offset within it; a success leaves
 * packetized or "CTF"-commented text ending in ';'.
 */
#include "fuzz_common.h"

#include <string.h>

#include "decode/manifest.h"
#include "format/ctf/ctf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *zero = memchr(data, 0, size);
    size_t name_len = zero ? (size_t)(zero - data) : size;
    char *name = malloc(name_len + 1);
    FUZZ_REQUIRE(name != NULL);
    memcpy(name, data, name_len);
    name[name_len] = '\0';
    const char *provider;
    char sym[256];
    uint32_t version;
    bool runtime;
    if (gcs_ctf_split_name(name, &provider, sym, sizeof sym, &version, &runtime)) {
        FUZZ_REQUIRE(strlen(sym) < sizeof sym);
        if (runtime) {
            FUZZ_REQUIRE(provider && strncmp(provider, "Microsoft-Windows-DotNETRuntime", 31) == 0);
            const gcs_builtin_event *e = gcs_builtin_lookup_symbol(provider, sym, version);
            FUZZ_REQUIRE(!e || e->version <= version);
        } else {
            FUZZ_REQUIRE(provider == NULL);
        }
    }
    free(name);

    const uint8_t *str = zero ? zero + 1 : data + size;
    size_t str_len = (size_t)(data + size - str);
    gcs_buf b;
    gcs_buf_init(&b, (size_t)1 << 24);
    if (gcs_ctf_append_utf16z(&b, str, str_len) == GCS_OK) {
        FUZZ_REQUIRE(b.len % 2 == 0 && b.len >= 2 && b.len <= 2 * str_len + 2);
        FUZZ_REQUIRE(b.data[b.len - 1] == 0 && b.data[b.len - 2] == 0);
    }
    gcs_buf_free(&b);

    gcs_error err = {0};
    gcs_status st = gcs_ctf_check_metadata(data, size, "fuzz/metadata", &err);
    if (st != GCS_OK) {
        FUZZ_REQUIRE(err.status == st && err.offset <= size);
        FUZZ_REQUIRE(strstr(err.reason, "fuzz/metadata") != NULL);
    } else {
        FUZZ_REQUIRE(size >= 7 && memchr(data, ';', size) != NULL);
    }
    return 0;
}
