/*
 * io/archive_lib.c - libarchive opened on first use (see archive_lib.h).
 */
#include "io/archive_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

gcs_libarchive_api gcs_libarchive;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool load_ok;
static char load_why[256];

/* Stores dlsym's address into a function pointer: POSIX guarantees the
 * object pointer converts; the copy keeps ISO C's cast rules out of it. */
static bool bind(void *lib, const char *name, void *slot, size_t slot_size)
{
    void *p = dlsym(lib, name);
    if (!p) {
        snprintf(load_why, sizeof load_why, "libarchive has no %s", name);
        return false;
    }
    memcpy(slot, &p, slot_size);
    return true;
}

static void load(void)
{
    const char *file = getenv("GCSCOPE_LIBARCHIVE");
    if (!file || !*file)
        file = "libarchive.so.13";
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(load_why, sizeof load_why, "%s", why ? why : file);
        return;
    }
#define GCS_LIBARCHIVE_BIND(name)                                                                \
    if (!bind(lib, #name, &gcs_libarchive.name, sizeof gcs_libarchive.name)) {                   \
        dlclose(lib);                                                                            \
        memset(&gcs_libarchive, 0, sizeof gcs_libarchive);                                       \
        return;                                                                                  \
    }
    GCS_LIBARCHIVE_FUNCTIONS(GCS_LIBARCHIVE_BIND)
#undef GCS_LIBARCHIVE_BIND
    load_ok = true; /* kept open for the process's life */
}

bool gcs_libarchive_load(gcs_error *err)
{
    pthread_once(&load_once, load);
    if (load_ok)
        return true;
    GCS_FAIL(err, GCS_ERR_UNSUPPORTED, 0,
             "zipped and compressed traces need libarchive (Debian: libarchive13), which "
             "could not be opened: %s",
             load_why);
    return false;
}

bool gcs_libarchive_loaded(void)
{
    return load_ok;
}
