/*
 * format/ctf/ctf.h - LTTng traces (CTF 1.8, as perfcollect writes them)
 * read through libbabeltrace2, given to the pipeline as a container.
 *
 * Unlike the other containers, babeltrace2 reads the trace's files itself
 * (a CTF trace is a folder: one metadata file and one stream file per
 * channel and CPU), so this container is driven by the library rather than
 * by the stream's bytes: each step pulls one batch of messages from a
 * babeltrace2 graph (source.ctf.fs -> filter.utils.muxer -> our sink) and
 * reports its events to the gcs_sink. See docs/format-ctf.md.
 */
#ifndef GCS_FORMAT_CTF_H
#define GCS_FORMAT_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "format/container.h"

/* Opens the CTF traces under the folder `path` (the perfcollect folder,
 * its lttngTrace folder, or one auto-... session folder). GCS_ERR_NOT_TRACE when the
 * folder holds no CTF metadata file. */
gcs_status gcs_ctf_open_dir(gcs_stream *s, const gcs_sink *sink, const char *path,
                            gcs_container **out, gcs_error *err);

/* True when the zip archive at `path` holds a CTF trace (a member named
 * ".../metadata" beside channel stream files), looked up by its members. */
bool gcs_ctf_zip_holds_trace(const char *path);

/* Extracts the zip archive at `path` into a private temporary folder
 * (deleted when the container is destroyed) and opens it as gcs_ctf_open_dir.
 * babeltrace2 reads stream files by path, so a zipped trace cannot be
 * streamed from the archive. */
gcs_status gcs_ctf_open_zip(gcs_stream *s, const gcs_sink *sink, const char *path,
                            gcs_container **out, gcs_error *err);

/* Deletes the temporary folders this process holds (extracted zips,
 * mirrors), with async-signal-safe calls only (fork + execve of /bin/rm):
 * for a signal handler, before the process dies. Folders are named
 * gcscope-ctf-<pid>-XXXXXX in $TMPDIR, and opening a zip deletes those of
 * processes that are gone. */
void gcs_ctf_remove_tmp_dirs(void);

/* ---- parts that handle untrusted values without babeltrace2 (fuzzed) ---- */

/* The runtime providers' LTTng names: "DotNETRuntime:GCStart_V2" ->
 * provider "Microsoft-Windows-DotNETRuntime", symbol "GCStart", version 2.
 * Any other "prov:name" -> provider "prov", symbol "name", version 0, and
 * *runtime false. false when the name has no ':'. symbol is written into
 * sym (cap bytes, truncated names refused). */
bool gcs_ctf_split_name(const char *lttng_name, const char **provider, char *sym, size_t cap,
                        uint32_t *version, bool *runtime);

/* Appends the UTF-8 string s (n bytes) to b as UTF-16LE with a 0x0000
 * terminator, as the runtime's manifest strings are laid out; an invalid
 * byte becomes U+FFFD. */
gcs_status gcs_ctf_append_utf16z(gcs_buf *b, const uint8_t *s, size_t n);

/* Checks a CTF metadata file (its bytes data[0..size); name says which in
 * errors) before babeltrace2 reads it (2.0.4 loops forever on packetized
 * metadata cut inside a packet): packetized (magic 0x75D11D57, either byte
 * order), every packet header whole, CTF 1.8 uncompressed, the sizes whole
 * bytes with header <= content <= packet, each packet inside the file, one
 * UUID; or plain text opening with the comment "CTF ...". Then the TSDL text (packet contents
 * joined): brackets balanced outside strings and comments, no NUL, ending
 * after a top-level ';'. GCS_ERR_TRUNCATED (cut short), GCS_ERR_CORRUPT,
 * GCS_ERR_UNSUPPORTED or GCS_ERR_LIMIT with the byte offset in the file. */
gcs_status gcs_ctf_check_metadata(const uint8_t *data, size_t size, const char *name,
                                  gcs_error *err);

/* The metadata row of the LTTng event class named `full`
 * ("DotNETRuntime:GCStart_V2", "sched_switch"), reported to the sink:
 * runtime events carry symbol and version for the decoder to find the
 * manifest id (gcs_meta_def.id_from_name). */
gcs_status gcs_ctf_define_class(const gcs_sink *sink, const char *full, uint32_t metadata_id,
                                uint64_t offset, gcs_error *err);

/* Room kept for a procname (LTTng writes 16 or 17 bytes; longer ones are
 * cut, a name past this would be a hostile trace's). */
#define GCS_CTF_PROCNAME_CAP 64

/* The procname last reported for each pid, so that the sink hears of a
 * name only when it changes. */
typedef struct gcs_ctf_names {
    struct gcs_ctf_pid_name {
        uint32_t pid;
        char name[GCS_CTF_PROCNAME_CAP];
    } *v;
    size_t n, cap, hit;
    /* The last call's pid and name bytes: the same again changes nothing
     * (nearly every event of a stream repeats its predecessor's). */
    bool has_last;
    uint32_t last_pid;
    size_t last_len;
    char last[GCS_CTF_PROCNAME_CAP];
} gcs_ctf_names;

/* Tells the sink the procname of pid (name[0..len), up to a NUL; from the
 * event context) when it is not blank and differs from the one told last
 * for pid. TraceEvent's CtfTraceEventSource names a process likewise: the
 * last non-blank procname its events carried. pid 0 names nothing. */
void gcs_ctf_names_report(gcs_ctf_names *t, const gcs_sink *sink, uint32_t pid, const char *name,
                          size_t len);

/* Whether a call with these values would be the last call again (which
 * changes nothing): gcs_ctf_names_report's first test, in line, eight
 * bytes at a time (LTTng's procname is 17 bytes, every event). */
static inline bool gcs_ctf_names_repeat(const gcs_ctf_names *t, uint32_t pid, const char *name,
                                        size_t len)
{
    if (!t->has_last || pid != t->last_pid || len != t->last_len)
        return false;
    uint64_t a, b;
    if (len < 8) {
        for (size_t i = 0; i < len; i++)
            if (name[i] != t->last[i])
                return false;
        return true;
    }
#if defined(__SSE2__)
    if (len >= 16 && len <= 32) { /* (LTTng's 17) two blocks of 16 that may overlap */
        __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)name);
        __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)t->last);
        __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(name + len - 16));
        __m128i b1 = _mm_loadu_si128((const __m128i *)(const void *)(t->last + len - 16));
        __m128i same = _mm_and_si128(_mm_cmpeq_epi8(a0, b0), _mm_cmpeq_epi8(a1, b1));
        return _mm_movemask_epi8(same) == 0xFFFF;
    }
#endif
    if (len <= 24) { /* three words that may overlap, without a loop */
        size_t mid = (len - 8) / 2, last = len - 8;
        uint64_t c, e, g, h;
        memcpy(&a, name, 8);
        memcpy(&b, t->last, 8);
        memcpy(&c, name + mid, 8);
        memcpy(&e, t->last + mid, 8);
        memcpy(&g, name + last, 8);
        memcpy(&h, t->last + last, 8);
        return ((a ^ b) | (c ^ e) | (g ^ h)) == 0;
    }
    /* Whole words, the last one ending at len (it may overlap). */
    for (size_t i = 0; len - i > 8; i += 8) {
        memcpy(&a, name + i, 8);
        memcpy(&b, t->last + i, 8);
        if (a != b)
            return false;
    }
    memcpy(&a, name + len - 8, 8);
    memcpy(&b, t->last + len - 8, 8);
    return a == b;
}
void gcs_ctf_names_free(gcs_ctf_names *t);

/* The trace facts, from the first event's clock (has_clock false: none):
 * frequency, offset from the epoch (seconds + cycles) and raw value. */
gcs_status gcs_ctf_send_info(const gcs_sink *sink, bool has_clock, uint64_t freq, int64_t off_s,
                             uint64_t off_cycles, uint64_t value, gcs_error *err);

/* gcs_ctf_check_metadata, and the TSDL text (the packets' contents joined,
 * or the plain text file) appended to `text`. */
gcs_status gcs_ctf_metadata_text(const uint8_t *data, size_t size, const char *name,
                                 gcs_buf *text, gcs_error *err);

#endif
