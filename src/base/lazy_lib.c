/*
 * base/lazy_lib.c - shared libraries opened on first use (lazy_lib.h).
 */
#include "base/lazy_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* Opens the library and binds every symbol: lib->ok, or lib->why says
 * what failed and every slot is left NULL. */
static void lazy_open(gcs_lazy_lib *lib)
{
    const char *file = lib->env ? getenv(lib->env) : NULL;
    if (!file || !*file)
        file = lib->file;
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(lib->why, sizeof lib->why, "%s", why ? why : file);
        return;
    }
    for (size_t i = 0; i < lib->n_symbols; i++) {
        const gcs_lazy_symbol *s = &lib->symbols[i];
        void *p = dlsym(handle, s->name);
        if (!p) {
            snprintf(lib->why, sizeof lib->why, "%s has no %s", file, s->name);
            for (size_t k = 0; k < lib->n_symbols; k++)
                memset(lib->symbols[k].slot, 0, lib->symbols[k].slot_size);
            dlclose(handle);
            return;
        }
        /* POSIX makes dlsym's object pointer convertible to a function
         * pointer; copying the bytes keeps ISO C's cast rules out of it. */
        memcpy(s->slot, &p, s->slot_size);
    }
    lib->ok = true; /* kept open for the process's life */
}

/* One lock for every library: each is opened at most once a process, so
 * the lock is taken a few times in all (a trace that needs a library asks
 * once when it opens). */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

bool gcs_lazy_lib_load(gcs_lazy_lib *lib, gcs_error *err)
{
    pthread_mutex_lock(&load_lock);
    if (!lib->tried) {
        lib->tried = true;
        lazy_open(lib);
    }
    bool ok = lib->ok;
    pthread_mutex_unlock(&load_lock);
    if (ok)
        return true;
    GCS_FAIL(err, GCS_ERR_UNSUPPORTED, 0, "%s, which could not be opened: %s", lib->what,
             lib->why);
    return false;
}
