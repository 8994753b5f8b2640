/*
 * io/archive_lib.c - libarchive opened on first use (see archive_lib.h).
 */
#include "io/archive_lib.h"

#include "base/lazy_lib.h"

gcs_libarchive_api gcs_libarchive;

#define GCS_LIBARCHIVE_SYMBOL(name)                                                              \
    {#name, &gcs_libarchive.name, sizeof gcs_libarchive.name},
static const gcs_lazy_symbol symbols[] = {GCS_LIBARCHIVE_FUNCTIONS(GCS_LIBARCHIVE_SYMBOL)};
#undef GCS_LIBARCHIVE_SYMBOL

static gcs_lazy_lib libarchive = {
    .what = "zipped and compressed traces need libarchive (Debian: libarchive13)",
    .env = "GCSCOPE_LIBARCHIVE",
    .file = "libarchive.so.13",
    .symbols = symbols,
    .n_symbols = sizeof symbols / sizeof symbols[0],
};

bool gcs_libarchive_load(gcs_error *err)
{
    return gcs_lazy_lib_load(&libarchive, err);
}
