/*
 * format/ctf/ctf_open.c - finding the CTF traces of a perfcollect trace:
 * in a folder (every folder below it holding a "metadata" file: the
 * kernel trace and the user-space ust/uid/<uid>/64-bit trace), or in a zip
 * archive, extracted with libarchive into a private temporary folder first
 * (babeltrace2 opens stream files by path, so nothing can be streamed
 * from inside the archive).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "io/archive_lib.h"
#include "format/ctf/ctf_internal.h"

/* Caps on what a zip may make us write (a zip bomb stops here). */
#define CTF_ZIP_MAX_BYTES ((uint64_t)16 << 30)
#define CTF_ZIP_MAX_ENTRIES 100000u
/* Largest metadata file read for our check (LTTng's are tens of KiB). */
/* Temporary folders (extracted zips, mirrors) are named
 * gcscope-ctf-<pid>-XXXXXX: a later run deletes those whose process is
 * gone (killed before it could delete them). */
#define CTF_TMP_PREFIX "gcscope-ctf-"
/* Temporary folders this process holds at once (one per open reader). */
#define CTF_TMP_REGISTERED 16
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

/* The stream file babeltrace2 could not index, named in its error. */
static bool unindexable_file(const char *reason, char *out, size_t cap)
{
    static const char tag[] = "Failed to index CTF stream file '";
    const char *p = strstr(reason, tag);
    if (!p)
        return false;
    p += sizeof tag - 1;
    const char *q = strchr(p, '\'');
    if (!q || (size_t)(q - p) >= cap)
        return false;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return true;
}

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* Bytes of the stream file `path` (size bytes) that hold whole packets,
 * from LTTng's index beside it (index/<name>.idx: a header, then one entry
 * per packet starting with its offset and its size in bits, big-endian).
 * 0 when there is no usable index. */
static uint64_t whole_packet_bytes(const char *path, uint64_t size)
{
    char idx[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        return 0;
    int n = snprintf(idx, sizeof idx, "%.*s/index/%s.idx", (int)(slash - path), path, slash + 1);
    if (n <= 0 || (size_t)n >= sizeof idx)
        return 0;
    FILE *f = fopen(idx, "rb");
    if (!f)
        return 0;
    uint8_t h[16], e[16];
    uint64_t keep = 0;
    if (fread(h, 1, 16, f) == 16 && be64(h) >> 32 == 0xC1F1DCC1u) {
        uint32_t len = (uint32_t)h[12] << 24 | (uint32_t)h[13] << 16 | (uint32_t)h[14] << 8 | h[15];
        while (len >= 16 && len <= 4096 && fread(e, 1, 16, f) == 16 &&
               fseek(f, (long)len - 16, SEEK_CUR) == 0) {
            uint64_t off = be64(e), bits = be64(e + 8);
            if (off > size || bits / 8 > size - off)
                break; /* this packet is the one cut */
            if (off + bits / 8 > keep)
                keep = off + bits / 8;
        }
    }
    fclose(f);
    return keep;
}

/* Copies the first n bytes of from into the new file to. */
static bool copy_prefix(const char *from, const char *to, uint64_t n)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = in >= 0 && out >= 0;
    char buf[1 << 16];
    while (ok && n > 0) {
        ssize_t r = read(in, buf, n < sizeof buf ? (size_t)n : sizeof buf);
        ok = r > 0 && write(out, buf, (size_t)r) == r;
        n -= ok ? (uint64_t)r : 0;
    }
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return ok;
}

/* Mirrors the trace folder `trace` into `to` with links, except the stream
 * file `cut`, copied up to `keep` bytes (left out when 0), and its index
 * (babeltrace2 then indexes the copy itself). */
static bool mirror_trace(const char *trace, const char *to, const char *cut, uint64_t keep)
{
    if (mkdir(to, 0700) != 0)
        return false;
    const char *cut_name = strrchr(cut, '/') + 1;
    char cut_idx[300];
    snprintf(cut_idx, sizeof cut_idx, "%s.idx", cut_name);
    for (int pass = 0; pass < 2; pass++) { /* the trace folder, then index/ */
        char from_dir[4096], to_dir[4096];
        int lf = snprintf(from_dir, sizeof from_dir, "%s%s", trace, pass ? "/index" : "");
        int lt = snprintf(to_dir, sizeof to_dir, "%s%s", to, pass ? "/index" : "");
        if (lf <= 0 || (size_t)lf >= sizeof from_dir || lt <= 0 || (size_t)lt >= sizeof to_dir)
            return false;
        struct dirent **names;
        int k = scandir(from_dir, &names, NULL, alphasort);
        if (k < 0)
            continue;
        if (pass && mkdir(to_dir, 0700) != 0)
            k = -k; /* free the names, link nothing */
        bool ok = true;
        for (int i = 0; i < (k < 0 ? -k : k); i++) {
            const char *nm = names[i]->d_name;
            char a[4096], b[4096];
            struct stat st;
            int la = snprintf(a, sizeof a, "%s/%s", from_dir, nm);
            int lb = snprintf(b, sizeof b, "%s/%s", to_dir, nm);
            if (k > 0 && ok && la > 0 && (size_t)la < sizeof a && lb > 0 && (size_t)lb < sizeof b &&
                stat(a, &st) == 0 && S_ISREG(st.st_mode)) {
                if (!pass && strcmp(nm, cut_name) == 0)
                    ok = keep == 0 || copy_prefix(a, b, keep);
                else if (!(pass && strcmp(nm, cut_idx) == 0))
                    ok = symlink(a, b) == 0;
            }
            free(names[i]);
        }
        free(names);
        if (!ok || k < 0)
            return false;
    }
    return true;
}

/* The temporary folders this process holds, for gcs_remove_temporary_files
 * (a signal handler): fixed arrays, no allocation; a slot counts only once
 * its path is whole (tmp_ready set after the path is written, cleared
 * before it is). */
static char tmp_registered[CTF_TMP_REGISTERED][4096];
static volatile sig_atomic_t tmp_ready[CTF_TMP_REGISTERED];

static const char *tmp_root(void)
{
    const char *t = getenv("TMPDIR");
    return t && t[0] ? t : "/tmp";
}

/* Deletes the temporary folders of ours in the temporary root whose
 * process is gone: a gcscope killed before it could delete them. Only
 * folders (not links) owned by this user. */
static void remove_stale(const char *root)
{
    DIR *d = opendir(root);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *nm = de->d_name;
        if (strncmp(nm, CTF_TMP_PREFIX, sizeof CTF_TMP_PREFIX - 1) != 0)
            continue;
        char *end;
        long pid = strtol(nm + sizeof CTF_TMP_PREFIX - 1, &end, 10);
        if (end == nm + sizeof CTF_TMP_PREFIX - 1 || *end != '-' || pid <= 0 ||
            pid == (long)getpid() || pid > INT32_MAX || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char p[4096];
        struct stat st;
        int n = snprintf(p, sizeof p, "%s/%s", root, nm);
        if (n > 0 && (size_t)n < sizeof p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
            st.st_uid == getuid())
            gcs_ctf_remove_tree(p);
    }
    closedir(d);
}

/* Creates a private temporary folder, after deleting stale ones; its
 * path (malloc'd) or NULL with errno. */
static char *make_tmp_dir(void)
{
    const char *root = tmp_root();
    remove_stale(root);
    char templ[4096];
    int n = snprintf(templ, sizeof templ, "%s/" CTF_TMP_PREFIX "%ld-XXXXXX", root, (long)getpid());
    if (n <= 0 || (size_t)n >= sizeof templ) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!mkdtemp(templ))
        return NULL;
    char *dir = strdup(templ);
    if (!dir) {
        rmdir(templ);
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < CTF_TMP_REGISTERED; i++)
        if (!tmp_ready[i]) {
            memcpy(tmp_registered[i], dir, (size_t)n + 1);
            tmp_ready[i] = 1;
            break;
        }
    return dir;
}

void gcs_ctf_remove_tmp_dirs(void)
{
    /* Only async-signal-safe calls: fork, execve, waitpid, _exit. */
    for (size_t i = 0; i < CTF_TMP_REGISTERED; i++) {
        if (!tmp_ready[i])
            continue;
        tmp_ready[i] = 0;
        pid_t child = fork();
        if (child == 0) {
            char *argv[] = {"rm", "-rf", "--", tmp_registered[i], NULL};
            char *envp[] = {NULL};
            execve("/bin/rm", argv, envp);
            _exit(127);
        }
        if (child > 0)
            while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
            }
    }
}

gcs_status gcs_ctf_read_metadata_file(const char *path, const char *shown, uint8_t **out,
                                      size_t *out_size, gcs_error *err)
{
    *out = NULL;
    *out_size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot open metadata file %s: %s", shown,
                        strerror(errno));
    /* The size the file says, plus one byte to see it grew past it. */
    struct stat sb;
    size_t want = fstat(fileno(f), &sb) == 0 && sb.st_size >= 0 &&
                          (uint64_t)sb.st_size <= CTF_METADATA_MAX_BYTES
                      ? (size_t)sb.st_size + 1
                      : CTF_METADATA_MAX_BYTES + 1;
    uint8_t *data = malloc(want);
    size_t size = data ? fread(data, 1, want, f) : 0;
    bool read_error = ferror(f);
    fclose(f);
    gcs_status st = GCS_OK;
    if (data && size == want && want <= CTF_METADATA_MAX_BYTES)
        st = GCS_FAIL(err, GCS_ERR_IO, size, "metadata file %s grew while it was read", shown);
    else if (!data)
        st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    else if (read_error)
        st = GCS_FAIL(err, GCS_ERR_IO, size, "cannot read metadata file %s", shown);
    else if (size > CTF_METADATA_MAX_BYTES)
        st = GCS_FAIL(err, GCS_ERR_LIMIT, CTF_METADATA_MAX_BYTES,
                      "metadata file %s is larger than %zu bytes", shown, CTF_METADATA_MAX_BYTES);
    if (st != GCS_OK) {
        free(data);
        return st;
    }
    *out = data;
    *out_size = size;
    return GCS_OK;
}

/* Checks the metadata file of the trace folder `trace` with
 * gcs_ctf_check_metadata before babeltrace2 reads it. Named in errors by
 * its path below tmp_dir (an extracted zip's member) or as given. */
static gcs_status check_metadata_file(const char *trace, const char *tmp_dir, gcs_error *err)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/metadata", trace);
    if (n <= 0 || (size_t)n >= sizeof path)
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0, "path too long: %s/metadata", trace);
    const char *shown = path;
    size_t tl = tmp_dir ? strlen(tmp_dir) : 0;
    if (tl && strncmp(path, tmp_dir, tl) == 0 && path[tl] == '/')
        shown = path + tl + 1;
    uint8_t *data;
    size_t size;
    gcs_status st = gcs_ctf_read_metadata_file(path, shown, &data, &size, err);
    if (st == GCS_OK)
        st = gcs_ctf_check_metadata(data, size, shown, err);
    free(data);
    return st;
}

/* Opens the traces found below root. babeltrace2 refuses a trace whose
 * stream file ends inside a packet (it indexes every packet first): such a
 * trace is opened again from a mirror holding that file's whole packets
 * only, and the cut is reported after the events (partial results, then
 * the error). */
static gcs_status open_found(gcs_stream *s, const gcs_sink *sink, const char *root,
                             char *tmp_dir, const char *shown, gcs_container **out,
                             gcs_error *err)
{
    trace_list l = {0};
    scan(root, CTF_SCAN_DEPTH, &l);
    gcs_status st;
    if (l.n == 0) {
        st = GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0,
                      "not a trace: %s holds no CTF trace (no folder with a metadata file)", shown);
        goto fail;
    }
    /* Our own reader first (it checks each metadata file's shape as it
     * reads it); babeltrace2 for metadata beyond its subset, or when
     * GCSCOPE_CTF_READER=babeltrace asks for it (the tests compare);
     * GCSCOPE_CTF_READER=native: ours only (its refusal is the error). */
    const char *choice = getenv("GCSCOPE_CTF_READER");
    if (!choice || strcmp(choice, "babeltrace") != 0) {
        st = gcs_ctf_native_open(s, sink, l.paths, l.n, tmp_dir, out, err);
        if (st != GCS_ERR_UNSUPPORTED || (choice && strcmp(choice, "native") == 0)) {
            if (st == GCS_OK) {
                list_free(&l);
                return GCS_OK;
            }
            goto fail;
        }
    }
    /* babeltrace2 loops forever on some cut metadata: every file is checked
     * before it sees one. */
    for (size_t i = 0; i < l.n; i++)
        if ((st = check_metadata_file(l.paths[i], tmp_dir, err)) != GCS_OK)
            goto fail;
    gcs_error deferred;
    bool has_deferred = false;
    for (unsigned attempt = 0;; attempt++) {
        st = gcs_ctf_open_traces(s, sink, l.paths, l.n, tmp_dir, has_deferred ? &deferred : NULL,
                                 out, err);
        if (st == GCS_OK) {
            list_free(&l);
            return GCS_OK;
        }
        char bad[4096];
        struct stat sb;
        if (attempt == GCS_CTF_MAX_TRACES || !unindexable_file(err->reason, bad, sizeof bad) ||
            stat(bad, &sb) != 0)
            goto fail;
        size_t i = 0;
        while (i < l.n && !(strncmp(bad, l.paths[i], strlen(l.paths[i])) == 0 &&
                            bad[strlen(l.paths[i])] == '/' &&
                            !strchr(bad + strlen(l.paths[i]) + 1, '/')))
            i++;
        if (i == l.n)
            goto fail;
        if (!tmp_dir && !(tmp_dir = make_tmp_dir()))
            goto fail;
        uint64_t size = (uint64_t)sb.st_size, keep = whole_packet_bytes(bad, size);
        char mirror[4096];
        snprintf(mirror, sizeof mirror, "%s/cut-%u", tmp_dir, attempt);
        char *dup = strdup(mirror);
        if (!dup || !mirror_trace(l.paths[i], mirror, bad, keep)) {
            free(dup);
            goto fail;
        }
        if (!has_deferred) {
            /* Named by its path in the input, not in our mirror. */
            const char *shown_bad = bad;
            if (tmp_dir && strncmp(bad, tmp_dir, strlen(tmp_dir)) == 0)
                shown_bad = strstr(bad + strlen(tmp_dir), "/") ? bad + strlen(tmp_dir) + 1 : bad;
            GCS_FAIL(&deferred, GCS_ERR_TRUNCATED, keep,
                     "stream file %s ends at byte %llu inside a packet; read up to "
                     "byte %llu (its whole packets)",
                     shown_bad, (unsigned long long)size, (unsigned long long)keep);
            has_deferred = true;
        }
        free(l.paths[i]);
        l.paths[i] = dup;
    }
fail:
    list_free(&l);
    if (tmp_dir) {
        gcs_ctf_remove_tree(tmp_dir);
        free(tmp_dir);
    }
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
    for (size_t i = 0; i < CTF_TMP_REGISTERED; i++)
        if (tmp_ready[i] && strcmp(tmp_registered[i], path) == 0)
            tmp_ready[i] = 0;
}

/* NULL when libarchive cannot be opened (gcs_libarchive_load says why) or
 * the zip cannot. */
static struct archive *zip_open(const char *path)
{
    if (!gcs_libarchive_load(NULL))
        return NULL;
    struct archive *a = gcs_libarchive.archive_read_new();
    if (!a)
        return NULL;
    gcs_libarchive.archive_read_support_format_zip(a);
    gcs_libarchive.archive_read_support_filter_none(a);
    if (gcs_libarchive.archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
        gcs_libarchive.archive_read_free(a);
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
                         gcs_libarchive.archive_read_next_header(a, &e) == ARCHIVE_OK;
         i++) {
        const char *name = gcs_libarchive.archive_entry_pathname(e);
        if (!name)
            continue;
        metadata |= strcmp(base_name(name), "metadata") == 0;
        channel |= strncmp(base_name(name), "channel", 7) == 0;
    }
    gcs_libarchive.archive_read_free(a);
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
    if (!gcs_libarchive_load(err))
        return GCS_ERR_UNSUPPORTED;
    struct archive *a = zip_open(path);
    if (!a)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot open the zip archive %s", path);
    gcs_status st = GCS_OK;
    uint64_t total = 0;
    unsigned entries = 0;
    struct archive_entry *e;
    int r;
    while ((r = gcs_libarchive.archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (++entries > CTF_ZIP_MAX_ENTRIES) {
            st = GCS_FAIL(err, GCS_ERR_LIMIT, 0, "%s: more than %u members", path,
                          CTF_ZIP_MAX_ENTRIES);
            break;
        }
        const char *name = gcs_libarchive.archive_entry_pathname(e);
        if (gcs_libarchive.archive_entry_filetype(e) != AE_IFREG)
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
        while ((r = gcs_libarchive.archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
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
                          gcs_libarchive.archive_error_string(a) ? gcs_libarchive.archive_error_string(a) : "unreadable");
        if (st != GCS_OK)
            break;
    }
    if (st == GCS_OK && r != ARCHIVE_EOF)
        st = GCS_FAIL(err, GCS_ERR_CORRUPT, 0, "%s: %s", path,
                      gcs_libarchive.archive_error_string(a) ? gcs_libarchive.archive_error_string(a) : "unreadable zip");
    gcs_libarchive.archive_read_free(a);
    return st;
}

gcs_status gcs_ctf_open_zip(gcs_stream *s, const gcs_sink *sink, const char *path,
                            gcs_container **out, gcs_error *err)
{
    char *dir = make_tmp_dir();
    if (!dir)
        return GCS_FAIL(err, GCS_ERR_IO, 0, "cannot create a temporary folder to extract %s: %s",
                        path, strerror(errno));
    gcs_status st = extract(path, dir, err);
    if (st != GCS_OK) {
        gcs_ctf_remove_tree(dir);
        free(dir);
        return st;
    }
    return open_found(s, sink, dir, dir, path, out, err);
}
