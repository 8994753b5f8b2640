/*
 * format/ctf/ctf_open.c - finding the CTF traces of a perfcollect trace:
 * in a folder (every folder below it holding a "metadata" file: the
 * kernel trace and the user-space ust/uid/<uid>/64-bit trace), or in a zip
 * archive, extracted with libarchive into a private temporary folder first
 * (babeltrace2 opens stream files by path, so nothing can be streamed
 * from inside the archive).
 */
#define _XOPEN_SOURCE 700
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "format/ctf/ctf_internal.h"

/* Caps on what a zip may make us write (a zip bomb stops here). */
#define CTF_ZIP_MAX_BYTES ((uint64_t)16 << 30)
#define CTF_ZIP_MAX_ENTRIES 100000u
/* Depth of folders scanned for traces. */
#define CTF_SCAN_DEPTH 8

typedef struct trace_list {
    char *paths[GCS_CTF_MAX_TRACES];
    size_t n;
    bool overflow;
} trace_list;

static void list_free(trace_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    l->n = 0;
}

static bool is_regular(const char *dir, const char *name)
{
    char p[4096];
    struct stat st;
    int n = snprintf(p, sizeof p, "%s/%s", dir, name);
    return n > 0 && (size_t)n < sizeof p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Adds every folder below dir (itself included) that holds a metadata file. */
static void scan(const char *dir, unsigned depth, trace_list *l)
{
    if (is_regular(dir, "metadata")) {
        if (l->n == GCS_CTF_MAX_TRACES) {
            l->overflow = true;
            return;
        }
        l->paths[l->n] = strdup(dir);
        if (l->paths[l->n])
            l->n++;
        return; /* a trace folder holds no other trace */
    }
    if (depth == 0)
        return;
    /* Sorted names: the same trace order (and metadata ids) every run. */
    struct dirent **names;
    int k = scandir(dir, &names, NULL, alphasort);
    if (k < 0)
        return;
    for (int i = 0; i < k; i++) {
        const char *nm = names[i]->d_name;
        if (strcmp(nm, ".") != 0 && strcmp(nm, "..") != 0) {
            char p[4096];
            struct stat st;
            int n = snprintf(p, sizeof p, "%s/%s", dir, nm);
            if (n > 0 && (size_t)n < sizeof p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                scan(p, depth - 1, l);
        }
        free(names[i]);
    }
    free(names);
}

static gcs_status open_found(gcs_stream *s, const gcs_sink *sink, const char *root,
                             char *tmp_dir, const char *shown, gcs_container **out,
                             gcs_error *err)
{
    trace_list l = {0};
    scan(root, CTF_SCAN_DEPTH, &l);
    if (l.n == 0) {
        if (tmp_dir) {
            gcs_ctf_remove_tree(tmp_dir);
            free(tmp_dir);
        }
        return GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                        "not a trace: %s holds no CTF trace (no folder with a metadata file)",
                        shown);
    }
    gcs_status st = gcs_ctf_open_traces(s, sink, l.paths, l.n, tmp_dir, out, err);
    list_free(&l);
    return st;
}

gcs_status gcs_ctf_open_dir(gcs_stream *s, const gcs_sink *sink, const char *path,
                            gcs_container **out, gcs_error *err)
{
    return open_found(s, sink, path, NULL, path, out, err);
}

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

void gcs_ctf_remove_tree(const char *path)
{
    nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static struct archive *zip_open(const char *path)
{
    struct archive *a = archive_read_new();
    if (!a)
        return NULL;
    archive_read_support_format_zip(a);
    archive_read_support_filter_none(a);
    if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
        archive_read_free(a);
        return NULL;
    }
    return a;
}

/* The last component of a member's path. */
static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

bool gcs_ctf_zip_holds_trace(const char *path)
{
    struct archive *a = zip_open(path);
    if (!a)
        return false;
    bool metadata = false, channel = false;
    struct archive_entry *e;
    for (unsigned i = 0; i < CTF_ZIP_MAX_ENTRIES && !(metadata && channel) &&
                         archive_read_next_header(a, &e) == ARCHIVE_OK;
         i++) {
        const char *name = archive_entry_pathname(e);
        if (!name)
            continue;
        metadata |= strcmp(base_name(name), "metadata") == 0;
        channel |= strncmp(base_name(name), "channel", 7) == 0;
    }
    archive_read_free(a);
    return metadata && channel;
}

/* A member path that stays inside the folder: relative, no "..", no
 * empty or "." components. */
static bool safe_member(const char *name)
{
    if (!name || !name[0] || name[0] == '/')
        return false;
    for (const char *p = name; *p;) {
        const char *q = strchr(p, '/');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        if ((n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.'))
            return false;
        if (n == 0 && q)
            return false;
        p = q ? q + 1 : p + n;
    }
    return true;
}

/* mkdir -p for the folders of rel below root. */
static bool make_parents(const char *root, const char *rel)
{
    char p[4096];
    int n = snprintf(p, sizeof p, "%s/%s", root, rel);
    if (n <= 0 || (size_t)n >= sizeof p)
        return false;
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return false;
        *s = '/';
    }
    return true;
}

/* Extracts the regular files of the zip under dir. */
static gcs_status extract(const char *path, const char *dir, gcs_error *err)
{
    struct archive *a = zip_open(path);
    if (!a)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot open the zip archive %s", path);
    gcs_status st = GCS_OK;
    uint64_t total = 0;
    unsigned entries = 0;
    struct archive_entry *e;
    int r;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (++entries > CTF_ZIP_MAX_ENTRIES) {
            st = GCS_FAIL(err, GCS_ERR_LIMIT, 0, "%s: more than %u members", path,
                          CTF_ZIP_MAX_ENTRIES);
            break;
        }
        const char *name = archive_entry_pathname(e);
        if (archive_entry_filetype(e) != AE_IFREG)
            continue;
        if (!safe_member(name)) {
            st = GCS_FAIL(err, GCS_ERR_CORRUPT, 0, "%s: member path %s leaves the archive's folder",
                          path, name ? name : "(none)");
            break;
        }
        char out[4096];
        int n = snprintf(out, sizeof out, "%s/%s", dir, name);
        if (n <= 0 || (size_t)n >= sizeof out || !make_parents(dir, name)) {
            st = GCS_FAIL(err, GCS_ERR_IO, 0, "%s: cannot extract %s", path, name);
            break;
        }
        int fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            st = GCS_FAIL(err, GCS_ERR_IO, 0, "%s: cannot extract %s: %s", path, name,
                          strerror(errno));
            break;
        }
        const void *buf;
        size_t size;
        la_int64_t off;
        while ((r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
            total += size;
            if (total > CTF_ZIP_MAX_BYTES) {
                st = GCS_FAIL(err, GCS_ERR_LIMIT, 0, "%s: more than %llu bytes once extracted",
                              path, (unsigned long long)CTF_ZIP_MAX_BYTES);
                break;
            }
            if (pwrite(fd, buf, size, off) != (ssize_t)size) {
                st = GCS_FAIL(err, GCS_ERR_IO, 0, "%s: cannot write %s: %s", path, out,
                              strerror(errno));
                break;
            }
        }
        close(fd);
        if (st == GCS_OK && r != ARCHIVE_EOF)
            st = GCS_FAIL(err, GCS_ERR_CORRUPT, 0, "%s: member %s: %s", path, name,
                          archive_error_string(a) ? archive_error_string(a) : "unreadable");
        if (st != GCS_OK)
            break;
    }
    if (st == GCS_OK && r != ARCHIVE_EOF)
        st = GCS_FAIL(err, GCS_ERR_CORRUPT, 0, "%s: %s", path,
                      archive_error_string(a) ? archive_error_string(a) : "unreadable zip");
    archive_read_free(a);
    return st;
}

gcs_status gcs_ctf_open_zip(gcs_stream *s, const gcs_sink *sink, const char *path,
                            gcs_container **out, gcs_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char templ[4096];
    int n = snprintf(templ, sizeof templ, "%s/gcscope-ctf-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (n <= 0 || (size_t)n >= sizeof templ || !mkdtemp(templ))
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot create a temporary folder to extract %s: %s",
                        path, strerror(errno));
    char *dir = strdup(templ);
    if (!dir) {
        gcs_ctf_remove_tree(templ);
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    }
    gcs_status st = extract(path, dir, err);
    if (st != GCS_OK) {
        gcs_ctf_remove_tree(dir);
        free(dir);
        return st;
    }
    return open_found(s, sink, dir, dir, path, out, err);
}
