/*
 * base/lazy_lib.h - a shared library opened the first time it is needed.
 *
 * gcscope links neither libarchive nor libbabeltrace2: loading them and
 * what they link (ICU, libxml2, glib, libstdc++, the compressors) costs
 * about 2.5 ms at every start, longer than counting a 10 MB trace takes,
 * and only zipped traces (libarchive) and CTF metadata beyond our own
 * reader (libbabeltrace2) need them. Each is a table of function pointers,
 * named and typed as in the library's header, filled by gcs_lazy_lib_load
 * once per process.
 */
#ifndef GCS_BASE_LAZY_LIB_H
#define GCS_BASE_LAZY_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include "gcscope/core.h"

/* One entry point: its name and where its address goes. */
typedef struct gcs_lazy_symbol {
    const char *name;
    void *slot;       /* a function pointer's address */
    size_t slot_size; /* sizeof that pointer */
} gcs_lazy_symbol;

/* A library and its entry points. Define one per library, static; the
 * fields after n_symbols start zero and belong to lazy_lib.c. */
typedef struct gcs_lazy_lib {
    const char *what;     /* "zipped and compressed traces need libarchive (...)" */
    const char *env;      /* environment variable naming another file, or NULL */
    const char *file;     /* the file dlopen opens by default (a soname) */
    const gcs_lazy_symbol *symbols;
    size_t n_symbols;
    bool tried, ok;
    char why[256];
} gcs_lazy_lib;

/* Opens lib once per process (thread-safe): true when every entry point
 * is bound; false with err set (GCS_ERR_UNSUPPORTED, offset 0: lib->what
 * and the loader's reason; every slot left NULL), the same answer each
 * time. */
bool gcs_lazy_lib_load(gcs_lazy_lib *lib, gcs_error *err);

#endif
