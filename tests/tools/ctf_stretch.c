/*
 * ctf_stretch - makes an LTTng (CTF) trace longer in time, for the bench's
 * CTF shape (scripts/bench.sh) and tests/cli/ctf_stretch.sh.
 *
 *   ctf_stretch --copies N IN OUT
 *   ctf_stretch --min-mb M IN OUT   (N: the fewest copies whose stream files
 *                                    reach M MiB)
 *
 * IN is one trace folder (its "metadata" file and stream files, e.g.
 * .../ust/uid/1000/64-bit); OUT is created with the same metadata and each
 * stream file made of N copies of its packets, copy k shifted by k * D
 * cycles of the trace's clock. D is the smallest multiple of 2^32 larger
 * than the trace's span (the earliest timestamp_begin to the latest
 * timestamp_end of all stream files), so copy k + 1 starts after copy k
 * ends, in every file, and the 27- and 32-bit compact timestamps of
 * LTTng's event headers (the clock's low bits) stay valid unchanged.
 *
 * What a copy rewrites, found by decoding IN with the library's own CTF
 * reader parts (ctf_tsdl.h layouts, ctf_decode.h fields):
 *   - the packet context's 64-bit clock fields (timestamp_begin,
 *     timestamp_end): + k * D;
 *   - every event's 64-bit clock field (the extended event header's
 *     timestamp), found by decoding each event whole and taking the
 *     decoder's clock_at / clock_bits after each part of it: + k * D
 *     (one clock field per part, as LTTng writes);
 *   - packet_seq_num: + k * (packets of the file), so that the sequence
 *     runs on without a gap (babeltrace2 counts gaps as discarded packets);
 *   - events_discarded (a running count per stream): + k * (its last
 *     value in the file), so that it never goes down.
 * A clock field of 33 to 63 bits would not survive the shift: refused.
 * The index/ folder is not written (readers rebuild it). Prints one line
 * about the new trace: copies, shift, span (cycles), stream files, packets,
 * events, 64-bit event timestamps rewritten or kept (event-clocks), bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/ctf/ctf.h"
#include "format/ctf/ctf_decode.h"
#include "format/ctf/ctf_tsdl.h"

#define STRETCH_METADATA_MAX ((size_t)64 << 20)
#define STRETCH_MAX_FILES 4096
#define STRETCH_MAX_COPIES 1000000u

typedef enum patch_kind { PATCH_CLOCK, PATCH_SEQ, PATCH_DISCARDED } patch_kind;

/* One field a copy rewrites: its bit position in the file, size, order. */
typedef struct patch {
    uint64_t bit;
    uint32_t bits;
    bool big;
    patch_kind kind;
} patch;

typedef struct stream_file {
    char *name;
    uint8_t *data;
    size_t size;
    patch *patches;
    size_t n_patches, cap_patches;
    uint64_t packets, events;
    uint64_t event_clocks; /* 64-bit clock fields of its events */
    uint64_t last_discarded;
} stream_file;

static const char *prog = "ctf_stretch";

/* Prints "ctf_stretch: " and the message; returns 1 (the exit status). */
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* The whole file at path (malloc'ed), or NULL. */
static uint8_t *read_file(const char *path, size_t max, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    uint8_t *data = NULL;
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && (uint64_t)sb.st_size <= max &&
        (data = malloc((size_t)sb.st_size + 1)) != NULL) {
        *size = fread(data, 1, (size_t)sb.st_size, fp);
        if (*size != (size_t)sb.st_size) {
            free(data);
            data = NULL;
        }
    }
    fclose(fp);
    return data;
}

/* The bits of a field, as ctf_decode.c reads them (CTF 1.8 4.1.5). */
static uint64_t get_bits(const uint8_t *data, uint64_t pos, uint32_t size, bool big)
{
    uint64_t v = 0;
    for (uint32_t i = 0; i < size; i++, pos++) {
        unsigned bit = big ? 7 - (unsigned)(pos & 7) : (unsigned)(pos & 7);
        uint64_t b = (data[pos >> 3] >> bit) & 1;
        v = big ? (v << 1) | b : v | b << i;
    }
    return v;
}

static void put_bits(uint8_t *data, uint64_t pos, uint32_t size, bool big, uint64_t v)
{
    for (uint32_t i = 0; i < size; i++, pos++) {
        unsigned bit = big ? 7 - (unsigned)(pos & 7) : (unsigned)(pos & 7);
        uint64_t b = big ? (v >> (size - 1 - i)) & 1 : (v >> i) & 1;
        data[pos >> 3] = (uint8_t)((data[pos >> 3] & ~(1u << bit)) | (unsigned)(b << bit));
    }
}

static bool is_big(const ctf_meta *m, const ctf_type *t)
{
    return t->byte_order == CTF_BO_BE || (t->byte_order == CTF_BO_NATIVE && m->big_endian);
}

static bool add_patch(stream_file *f, uint64_t bit, uint32_t bits, bool big, patch_kind kind)
{
    if (!gcs_array_reserve((void **)&f->patches, &f->cap_patches, f->n_patches + 1,
                           sizeof *f->patches, 1024))
        return false;
    f->patches[f->n_patches++] = (patch){bit, bits, big, kind};
    return true;
}

/* After a part of an event: the clock field it read, if any, becomes a
 * patch (base: the packet's first bit in the file). */
static int note_clock(stream_file *f, ctf_decoder *d, uint64_t base, uint64_t event_at)
{
    if (d->clock_bits == 0 || d->clock_bits <= 32) {
        d->clock_bits = 0;
        return 0;
    }
    if (d->clock_bits != 64)
        return fail("%s: a clock field of 33 to 63 bits at byte %llu", f->name, (unsigned long long)event_at);
    /* A 64-bit clock field holds the clock whole: its byte order is the
     * one that reads it back (the decoder keeps no pointer to its type). */
    bool big = d->meta->big_endian;
    if (get_bits(d->data, d->clock_at, 64, big) != d->clock)
        big = !big;
    if (!add_patch(f, base + d->clock_at, 64, big, PATCH_CLOCK))
        return fail("%s: out of memory at byte %llu", f->name, (unsigned long long)event_at);
    f->event_clocks++;
    d->clock_bits = 0;
    return 0;
}

/* Decodes every packet and event of f, collecting its patches; span_lo /
 * span_hi take its packets' earliest begin and latest end. */
static int scan_file(const ctf_meta *m, stream_file *f, uint64_t *regs, uint64_t *span_lo,
                     uint64_t *span_hi)
{
    ctf_decoder d;
    memset(&d, 0, sizeof d);
    d.meta = m;
    d.regs = regs;
    d.clock_index = -1;
    uint64_t at = 0;
    while (at < f->size) {
        memset(regs, 0, m->n_regs * sizeof *regs);
        d.data = f->data + at;
        d.pos = 0;
        d.end = 8 * (uint64_t)(f->size - at);
        uint64_t base = 8 * at;
        if (m->packet_header && ctf_read(&d, m->packet_header, NULL) != GCS_OK)
            return fail("%s: a packet header the metadata does not describe at byte %llu",
                        f->name, (unsigned long long)at);
        const ctf_stream_class *sc = ctf_meta_stream(m, regs[CTF_ROLE_STREAM_ID]);
        if (!sc)
            return fail("%s: a packet of an undeclared stream class at byte %llu", f->name, (unsigned long long)at);
        bool has_begin = false;
        uint64_t begin = 0, end_ts = 0;
        const ctf_type *pc = sc->packet_context;
        if (pc && !ctf_align(&d, pc->align))
            return fail("%s: a packet context cut at byte %llu", f->name, (unsigned long long)at);
        for (uint32_t i = 0; pc && i < pc->n_members; i++) {
            const ctf_member *mb = &pc->members[i];
            const ctf_type *t = mb->type;
            if (!ctf_align(&d, t->align))
                return fail("%s: a packet context cut at byte %llu", f->name, (unsigned long long)at);
            uint64_t field_at = d.pos;
            if (ctf_read_member(&d, mb, NULL) != GCS_OK)
                return fail("%s: a packet context cut at byte %llu", f->name, (unsigned long long)at);
            if (t->kind != CTF_INT)
                continue;
            uint64_t v = get_bits(d.data, field_at, t->size, is_big(m, t));
            bool ok = true;
            if (t->clock >= 0 && t->size == 64) {
                ok = add_patch(f, base + field_at, 64, is_big(m, t), PATCH_CLOCK);
                if (mb->leaves_clock) {
                    end_ts = v;
                } else {
                    begin = v;
                    has_begin = true;
                }
            } else if (t->clock >= 0 && t->size > 32) {
                return fail("%s: a clock field of 33 to 63 bits at byte %llu", f->name, (unsigned long long)at);
            } else if (strcmp(mb->name, "packet_seq_num") == 0) {
                ok = add_patch(f, base + field_at, t->size, is_big(m, t), PATCH_SEQ);
            } else if (strcmp(mb->name, "events_discarded") == 0) {
                ok = add_patch(f, base + field_at, t->size, is_big(m, t), PATCH_DISCARDED);
                f->last_discarded = v;
            }
            if (!ok)
                return fail("%s: out of memory at byte %llu", f->name, (unsigned long long)at);
        }
        if (has_begin) {
            if (begin < *span_lo)
                *span_lo = begin;
            uint64_t last = end_ts > begin ? end_ts : begin;
            if (last > *span_hi)
                *span_hi = last;
        }
        uint64_t packet_bits = (sc->context_roles & (1u << CTF_ROLE_PACKET_SIZE))
                                   ? regs[CTF_ROLE_PACKET_SIZE]
                                   : 8 * (uint64_t)(f->size - at);
        uint64_t content_bits = (sc->context_roles & (1u << CTF_ROLE_CONTENT_SIZE))
                                    ? regs[CTF_ROLE_CONTENT_SIZE]
                                    : packet_bits;
        if (packet_bits == 0 || packet_bits % 8 || content_bits > packet_bits ||
            content_bits < d.pos || packet_bits / 8 > f->size - at)
            return fail("%s: a packet whose sizes do not fit at byte %llu", f->name, (unsigned long long)at);
        d.end = content_bits;
        d.clock_bits = 0;
        while (d.pos < d.end) {
            uint64_t event_at = at + d.pos / 8;
            regs[CTF_ROLE_EVENT_ID] = 0;
            if (sc->event_header && ctf_read(&d, sc->event_header, NULL) != GCS_OK)
                return fail("%s: an event header cut at byte %llu", f->name,
                            (unsigned long long)event_at);
            if (note_clock(f, &d, base, event_at) != 0)
                return 1;
            uint64_t id = regs[CTF_ROLE_EVENT_ID];
            const ctf_event_class *ec = id < sc->n_by_id ? sc->by_id[id] : NULL;
            if (!ec)
                return fail("%s: an event of an undeclared class at byte %llu", f->name,
                            (unsigned long long)event_at);
            const ctf_type *parts[3] = {sc->event_context, ec->context, ec->fields};
            for (int p = 0; p < 3; p++) {
                if (!parts[p])
                    continue;
                if (ctf_read(&d, parts[p], NULL) != GCS_OK)
                    return fail("%s: an event the metadata does not describe at byte %llu",
                                f->name, (unsigned long long)event_at);
                if (note_clock(f, &d, base, event_at) != 0)
                    return 1;
            }
            f->events++;
        }
        f->packets++;
        at += packet_bits / 8;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const stream_file *)a)->name, ((const stream_file *)b)->name);
}

/* Writes copy k of f (its patches moved by k) to fp from scratch (f's
 * bytes copied into it first). */
static bool write_copy(FILE *fp, const stream_file *f, uint8_t *scratch, uint64_t k, uint64_t shift)
{
    memcpy(scratch, f->data, f->size);
    for (size_t i = 0; k && i < f->n_patches; i++) {
        const patch *p = &f->patches[i];
        uint64_t by = p->kind == PATCH_CLOCK ? k * shift
                      : p->kind == PATCH_SEQ ? k * f->packets
                                             : k * f->last_discarded;
        uint64_t v = get_bits(f->data, p->bit, p->bits, p->big) + by;
        put_bits(scratch, p->bit, p->bits, p->big, v);
    }
    return fwrite(scratch, 1, f->size, fp) == f->size;
}

int main(int argc, char **argv)
{
    uint64_t copies = 0, min_mb = 0;
    int a = 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        char *e;
        unsigned long long v = strtoull(argv[a + 1], &e, 10);
        if (*e || v == 0)
            break;
        if (strcmp(argv[a], "--copies") == 0)
            copies = v;
        else if (strcmp(argv[a], "--min-mb") == 0)
            min_mb = v;
        else
            break;
    }
    if (argc - a != 2 || (copies == 0) == (min_mb == 0)) {
        fprintf(stderr, "usage: %s --copies N | --min-mb M  IN_TRACE_FOLDER OUT_FOLDER\n", prog);
        return 2;
    }
    const char *in = argv[a], *out = argv[a + 1];
    char path[4096];

    /* The metadata: copied as is, parsed for the layouts. */
    snprintf(path, sizeof path, "%s/metadata", in);
    size_t meta_size = 0;
    uint8_t *meta_bytes = read_file(path, STRETCH_METADATA_MAX, &meta_size);
    if (!meta_bytes)
        return fail("%s: cannot read: %s", path, strerror(errno));
    gcs_error err;
    gcs_error_clear(&err);
    gcs_buf text;
    gcs_buf_init(&text, STRETCH_METADATA_MAX);
    ctf_meta meta;
    memset(&meta, 0, sizeof meta);
    gcs_status st = gcs_ctf_metadata_text(meta_bytes, meta_size, path, &text, &err);
    if (st == GCS_OK)
        st = ctf_meta_parse(&meta, (const char *)text.data, text.len, path, &err);
    gcs_buf_free(&text);
    if (st != GCS_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, err.reason);
        return 1;
    }

    /* The stream files: every regular file but metadata and dot files. */
    stream_file *files = calloc(STRETCH_MAX_FILES, sizeof *files);
    size_t n_files = 0;
    DIR *dir = opendir(in);
    if (!files || !dir)
        return fail("%s: cannot list: %s", in, strerror(errno));
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", in, de->d_name);
        if (de->d_name[0] == '.' || strcmp(de->d_name, "metadata") == 0 ||
            stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (n_files == STRETCH_MAX_FILES)
            return fail("%s: over %d stream files", in, STRETCH_MAX_FILES);
        stream_file *f = &files[n_files++];
        f->name = strdup(de->d_name);
        f->data = read_file(path, SIZE_MAX / 2, &f->size);
        if (!f->name || !f->data)
            return fail("%s: cannot read: %s", path, strerror(errno));
    }
    closedir(dir);
    qsort(files, n_files, sizeof *files, by_name);

    uint64_t *regs = calloc(meta.n_regs ? meta.n_regs : 1, sizeof *regs);
    uint64_t lo = UINT64_MAX, hi = 0, in_bytes = 0, packets = 0, events = 0, event_clocks = 0;
    size_t largest = 1;
    for (size_t i = 0; i < n_files; i++) {
        if (!regs || scan_file(&meta, &files[i], regs, &lo, &hi) != 0)
            return 1;
        in_bytes += files[i].size;
        packets += files[i].packets;
        events += files[i].events;
        event_clocks += files[i].event_clocks;
        if (files[i].size > largest)
            largest = files[i].size;
    }
    if (n_files == 0 || lo > hi)
        return fail("%s: no packet with a timestamp_begin", in);
    uint64_t span = hi - lo;
    uint64_t shift = (span / ((uint64_t)1 << 32) + 1) << 32;
    if (min_mb) {
        uint64_t want = min_mb << 20;
        copies = in_bytes ? (want + in_bytes - 1) / in_bytes : 1;
    }
    if (copies > STRETCH_MAX_COPIES || (copies - 1) > (UINT64_MAX - hi) / shift)
        return fail("%s: %" PRIu64 " copies would overflow the clock", in, copies);

    /* The new trace. */
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        return fail("%s: cannot create: %s", out, strerror(errno));
    snprintf(path, sizeof path, "%s/metadata", out);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(meta_bytes, 1, meta_size, fp) != meta_size || fclose(fp) != 0)
        return fail("%s: cannot write: %s", path, strerror(errno));
    uint8_t *scratch = malloc(largest);
    if (!scratch)
        return fail("out of memory");
    for (size_t i = 0; i < n_files; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i].name);
        fp = fopen(path, "wb");
        bool ok = fp != NULL;
        for (uint64_t k = 0; ok && k < copies; k++)
            ok = write_copy(fp, &files[i], scratch, k, shift);
        if (!fp || fclose(fp) != 0 || !ok)
            return fail("%s: cannot write: %s", path, strerror(errno));
    }
    printf("copies %" PRIu64 " shift %" PRIu64 " span %" PRIu64 " files %zu packets %" PRIu64
           " events %" PRIu64 " event-clocks %" PRIu64 " bytes %" PRIu64 "\n",
           copies, shift, span, n_files, copies * packets, copies * events, copies * event_clocks,
           copies * in_bytes);

    free(scratch);
    free(regs);
    for (size_t i = 0; i < n_files; i++) {
        free(files[i].name);
        free(files[i].data);
        free(files[i].patches);
    }
    free(files);
    free(meta_bytes);
    ctf_meta_free(&meta);
    return 0;
}
