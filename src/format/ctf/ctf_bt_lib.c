/*
 * format/ctf/ctf_bt_lib.c - libbabeltrace2 opened on first use
 * (ctf_bt_lib.h).
 */
#include "format/ctf/ctf_bt_lib.h"

#include "base/lazy_lib.h"

gcs_babeltrace_api gcs_babeltrace;

#define GCS_BABELTRACE_SYMBOL(name)                                                              \
    {#name, &gcs_babeltrace.name, sizeof gcs_babeltrace.name},
static const gcs_lazy_symbol symbols[] = {GCS_BABELTRACE_FUNCTIONS(GCS_BABELTRACE_SYMBOL)};
#undef GCS_BABELTRACE_SYMBOL

static gcs_lazy_lib libbabeltrace2 = {
    .what = "this CTF trace needs libbabeltrace2 (Debian: libbabeltrace2-0)",
    .env = "GCSCOPE_LIBBABELTRACE2",
    .file = "libbabeltrace2.so.0",
    .symbols = symbols,
    .n_symbols = sizeof symbols / sizeof symbols[0],
};

bool gcs_babeltrace_load(gcs_error *err)
{
    return gcs_lazy_lib_load(&libbabeltrace2, err);
}
