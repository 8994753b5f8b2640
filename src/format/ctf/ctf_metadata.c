/*
 * format/ctf/ctf_metadata.c - our own check of a CTF metadata file before
 * babeltrace2 reads it. babeltrace2 2.0.4 loops forever on a packetized
 * metadata file cut inside a packet, and nothing outside the library can
 * stop it, so hostile metadata must be refused before the library sees
 * it: the packet framing (every header whole, sizes consistent and inside
 * the file) and the TSDL text's shape (brackets balanced outside strings
 * and comments, the text ending after a top-level ';'). The text is not
 * parsed further: babeltrace2 does that and reports its own errors.
 * Fuzzed by tests/fuzz/fuzz_ctf.c.
 */
#include "format/ctf/ctf.h"

#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/error.h"
#include "format/ctf/ctf_internal.h"

/* A packetized metadata file's packet header (CTF 1.8 section 7.1):
 * magic, uuid[16], checksum, content_size, packet_size (bits), then the
 * compression, encryption and checksum schemes and the major and minor
 * version, one byte each. */
#define CTF_METADATA_MAGIC 0x75D11D57u
#define CTF_METADATA_HEADER_BYTES 37u
/* Brackets nest a few levels in LTTng's metadata; deeper is refused. */
#define CTF_TSDL_MAX_DEPTH 256u

typedef enum { TSDL_CODE, TSDL_STRING, TSDL_CHAR, TSDL_LINE_COMMENT, TSDL_BLOCK_COMMENT } tsdl_state;

/* The scan of the TSDL text, fed piece by piece (one packet's contents at
 * a time): the state survives the packet boundaries. */
typedef struct tsdl_scan {
    tsdl_state state;
    uint64_t state_at;  /* offset where the string or comment opened */
    bool escape;        /* in a string: the byte after a backslash */
    bool slash;         /* in code: a '/' not yet known to open a comment */
    uint64_t slash_at;  /* its offset */
    bool star;          /* in a block comment: the previous byte was '*' */
    uint8_t last;       /* the last code byte that is not blank */
    unsigned depth;
    char open[CTF_TSDL_MAX_DEPTH];
    uint64_t open_at[CTF_TSDL_MAX_DEPTH];
} tsdl_scan;

static bool is_blank(uint8_t b) { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'; }

static char closer_of(char open) { return open == '{' ? '}' : open == '[' ? ']' : ')'; }

/* One byte of code (not in a string or comment) at offset at. */
static gcs_status code_byte(tsdl_scan *t, uint8_t b, uint64_t at, const char *name, gcs_error *err)
{
    if (b == '"' || b == '\'') {
        t->state = b == '"' ? TSDL_STRING : TSDL_CHAR;
        t->state_at = at;
        t->escape = false;
    } else if (b == '{' || b == '[' || b == '(') {
        if (t->depth == CTF_TSDL_MAX_DEPTH)
            return GCS_FAIL(err, GCS_ERR_LIMIT, at,
                            "metadata file %s: brackets nest deeper than %u", name,
                            CTF_TSDL_MAX_DEPTH);
        t->open[t->depth] = (char)b;
        t->open_at[t->depth++] = at;
    } else if (b == '}' || b == ']' || b == ')') {
        if (t->depth == 0)
            return GCS_CORRUPT(err, at, "metadata file %s: a '%c' closes nothing", name, b);
        char open = t->open[t->depth - 1];
        if (closer_of(open) != (char)b)
            return GCS_CORRUPT(err, at,
                               "metadata file %s: a '%c' closes the '%c' opened at byte %llu",
                               name, b, open, (unsigned long long)t->open_at[t->depth - 1]);
        t->depth--;
    }
    if (!is_blank(b))
        t->last = b;
    return GCS_OK;
}

/* Bytes of code that change nothing but `last` (code_byte does no more
 * with them) are all but these: NUL, quotes, brackets and '/'. As bits
 * by byte value, and the blanks likewise. */
static const uint64_t special_bytes[4] = {0x0000838400000001u, 0x2800000028000000u, 0x0000000000000000u, 0x0000000000000000u};
static const uint64_t blank_bytes[4] = {0x0000000100003e00u, 0x0000000000000000u, 0x0000000000000000u, 0x0000000000000000u};

static inline bool byte_in(const uint64_t set[4], uint8_t b) { return (set[b >> 6] >> (b & 63)) & 1; }

/* Scans the text bytes under c (the cursor's offsets are the file's). */
static gcs_status tsdl_feed(tsdl_scan *t, gcs_cursor *c, const char *name, gcs_error *err)
{
    uint8_t b;
    for (uint64_t at = gcs_cur_offset(c); gcs_cur_u8(c, &b); at = gcs_cur_offset(c)) {
        if (b == 0)
            return GCS_CORRUPT(err, at, "metadata file %s: a NUL byte inside the metadata text",
                               name);
        if (t->state == TSDL_CODE && !t->slash && !byte_in(special_bytes, b) && gcs_ctf_shortcuts) {
            /* A run of plain code (names, numbers, blanks: most of the
             * text) taken whole: only its last byte that is not blank
             * counts. */
            const uint8_t *run;
            size_t left = gcs_cur_left(c), n = 0;
            if (!byte_in(blank_bytes, b))
                t->last = b;
            if (gcs_cur_bytes(c, 0, &run)) {
                while (n < left && !byte_in(special_bytes, run[n]))
                    n++;
                gcs_cur_skip(c, n);
                size_t k = n; /* the run's last byte that is not blank, if any */
                while (k > 0 && byte_in(blank_bytes, run[k - 1]))
                    k--;
                if (k > 0)
                    t->last = run[k - 1];
            }
            continue;
        }
        switch (t->state) {
        case TSDL_CODE:
            if (t->slash) {
                t->slash = false;
                if (b == '*' || b == '/') {
                    t->state = b == '*' ? TSDL_BLOCK_COMMENT : TSDL_LINE_COMMENT;
                    t->state_at = t->slash_at;
                    t->star = false;
                    break;
                }
                t->last = '/'; /* a plain '/' (a division) */
            }
            if (b == '/') {
                t->slash = true;
                t->slash_at = at;
                break;
            }
            gcs_status st = code_byte(t, b, at, name, err);
            if (st != GCS_OK)
                return st;
            break;
        case TSDL_STRING:
        case TSDL_CHAR:
            if (t->escape)
                t->escape = false;
            else if (b == '\\')
                t->escape = true;
            else if (b == (t->state == TSDL_STRING ? '"' : '\''))
                t->state = TSDL_CODE;
            break;
        case TSDL_LINE_COMMENT:
            if (b == '\n')
                t->state = TSDL_CODE;
            break;
        case TSDL_BLOCK_COMMENT:
            if (t->star && b == '/')
                t->state = TSDL_CODE;
            t->star = b == '*';
            break;
        }
    }
    return GCS_OK;
}

/* The text ended at offset end: it must end after a top-level ';'. */
static gcs_status tsdl_end(const tsdl_scan *t, uint64_t end, const char *name, gcs_error *err)
{
    if (t->state == TSDL_STRING || t->state == TSDL_CHAR || t->state == TSDL_BLOCK_COMMENT)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, end,
                        "metadata file %s: the text ends inside the %s opened at byte %llu", name,
                        t->state == TSDL_STRING ? "string"
                        : t->state == TSDL_CHAR ? "character literal"
                                                : "comment",
                        (unsigned long long)t->state_at);
    if (t->depth > 0)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, end,
                        "metadata file %s: the text ends inside the '%c' opened at byte %llu",
                        name, t->open[t->depth - 1],
                        (unsigned long long)t->open_at[t->depth - 1]);
    if (t->slash || t->last != ';')
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, end,
                        "metadata file %s: the text does not end after a ';' (cut short?)", name);
    return GCS_OK;
}

static uint32_t swap32(uint32_t v)
{
    return v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24;
}

/* Checks the packet starting at c's position (one of a packetized file of
 * size bytes) and scans its contents. big: the file's byte order; uuid:
 * the first packet's, which every packet repeats. *content_end: where its
 * contents end (the text ends there if it is the last packet). */
static gcs_status check_packet(gcs_cursor *c, size_t size, bool big, const uint8_t *uuid,
                               tsdl_scan *t, uint64_t *content_end, gcs_buf *joined,
                               const char *name, gcs_error *err)
{
    uint64_t at = gcs_cur_offset(c);
    gcs_cursor h;
    if (!gcs_cur_sub(c, CTF_METADATA_HEADER_BYTES, &h))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "metadata file %s: ends at byte %zu inside the header of the packet at "
                        "byte %llu",
                        name, size, (unsigned long long)at);
    uint32_t magic, checksum, content_bits, packet_bits;
    const uint8_t *packet_uuid, *schemes;
    bool ok = gcs_cur_u32(&h, &magic) && gcs_cur_bytes(&h, 16, &packet_uuid) &&
              gcs_cur_u32(&h, &checksum) && gcs_cur_u32(&h, &content_bits) &&
              gcs_cur_u32(&h, &packet_bits) && gcs_cur_bytes(&h, 5, &schemes);
    (void)ok; /* the sub-cursor holds exactly these 37 bytes */
    if (big) {
        magic = swap32(magic);
        content_bits = swap32(content_bits);
        packet_bits = swap32(packet_bits);
    }
    if (magic != CTF_METADATA_MAGIC)
        return GCS_CORRUPT(err, at,
                           "metadata file %s: the packet at byte %llu has magic 0x%08X, not "
                           "0x%08X (%s-endian like the first)",
                           name, (unsigned long long)at, magic, CTF_METADATA_MAGIC,
                           big ? "big" : "little");
    if (uuid && memcmp(uuid, packet_uuid, 16) != 0)
        return GCS_CORRUPT(err, at + 4,
                           "metadata file %s: the packet at byte %llu has another trace UUID "
                           "than the first packet",
                           name, (unsigned long long)at);
    if (schemes[0] || schemes[1] || schemes[2])
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, at + 32,
                        "metadata file %s: the packet at byte %llu is compressed, encrypted or "
                        "checksummed (schemes %u, %u, %u)",
                        name, (unsigned long long)at, schemes[0], schemes[1], schemes[2]);
    if (schemes[3] != 1 || schemes[4] != 8)
        return GCS_FAIL(err, GCS_ERR_UNSUPPORTED, at + 35,
                        "metadata file %s: the packet at byte %llu says CTF %u.%u, not 1.8", name,
                        (unsigned long long)at, schemes[3], schemes[4]);
    if (content_bits % 8 || packet_bits % 8 || content_bits > packet_bits ||
        content_bits < 8 * CTF_METADATA_HEADER_BYTES)
        return GCS_CORRUPT(err, at + 24,
                           "metadata file %s: the packet at byte %llu has content size %u and "
                           "packet size %u bits (whole bytes, header <= content <= packet)",
                           name, (unsigned long long)at, content_bits, packet_bits);
    size_t content = content_bits / 8 - CTF_METADATA_HEADER_BYTES;
    size_t padding = (packet_bits - content_bits) / 8;
    if (content > gcs_cur_left(c) || padding > gcs_cur_left(c) - content)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at,
                        "metadata file %s: ends at byte %zu inside the packet at byte %llu "
                        "(%u bytes long)",
                        name, size, (unsigned long long)at, packet_bits / 8);
    gcs_cursor text;
    gcs_cur_sub(c, content, &text);
    gcs_cur_skip(c, padding);
    *content_end = gcs_cur_offset(&text) + content;
    if (joined) {
        gcs_cursor copy = text;
        const uint8_t *bytes;
        if (gcs_cur_bytes(&copy, content, &bytes) && gcs_buf_append(joined, bytes, content) != GCS_OK)
            return GCS_FAIL(err, GCS_ERR_NOMEM, at, "metadata file %s: out of memory", name);
    }
    return tsdl_feed(t, &text, name, err);
}

/* The check, joining the text into `joined` when not NULL. */
static gcs_status check_and_join(const uint8_t *data, size_t size, const char *name,
                                 gcs_buf *joined, gcs_error *err)
{
    static const char text_signature[] = "/* CTF";
    gcs_cursor c = gcs_cur_make(data, size, 0);
    /* The magic's bytes in either order; a file shorter than the magic
     * that starts like it is packetized metadata cut short. */
    static const uint8_t magic_le[4] = {0x57, 0x1D, 0xD1, 0x75}, magic_be[4] = {0x75, 0xD1, 0x1D, 0x57};
    size_t seen = size < 4 ? size : 4;
    const uint8_t *head = NULL;
    gcs_cursor peek = c;
    bool has_magic = seen > 0 && gcs_cur_bytes(&peek, seen, &head) &&
                     (memcmp(head, magic_le, seen) == 0 || memcmp(head, magic_be, seen) == 0);
    bool big = has_magic && memcmp(head, magic_be, seen) == 0;
    tsdl_scan *t = calloc(1, sizeof *t);
    if (!t)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
    gcs_status st = GCS_OK;
    uint64_t text_end = size;
    if (has_magic) {
        const uint8_t *uuid = NULL;
        while (st == GCS_OK && gcs_cur_left(&c) > 0) {
            gcs_cursor first = c;
            st = check_packet(&c, size, big, uuid, t, &text_end, joined, name, err);
            if (!uuid && st == GCS_OK) {
                gcs_cur_skip(&first, 4);
                gcs_cur_bytes(&first, 16, &uuid);
            }
        }
    } else {
        const uint8_t *sig;
        gcs_cursor s = c;
        if (!gcs_cur_bytes(&s, sizeof text_signature - 1, &sig) ||
            memcmp(sig, text_signature, sizeof text_signature - 1) != 0)
            st = GCS_CORRUPT(err, 0,
                             "metadata file %s: neither packetized (magic 0x%08X) nor text "
                             "starting \"%s\"",
                             name, CTF_METADATA_MAGIC, text_signature);
        else {
            if (joined && gcs_buf_append(joined, data, size) != GCS_OK)
                st = GCS_FAIL(err, GCS_ERR_NOMEM, 0, "metadata file %s: out of memory", name);
            if (st == GCS_OK)
                st = tsdl_feed(t, &c, name, err);
        }
    }
    if (st == GCS_OK)
        st = tsdl_end(t, text_end, name, err);
    free(t);
    return st;
}

gcs_status gcs_ctf_check_metadata(const uint8_t *data, size_t size, const char *name,
                                  gcs_error *err)
{
    return check_and_join(data, size, name, NULL, err);
}

gcs_status gcs_ctf_metadata_text(const uint8_t *data, size_t size, const char *name,
                                 gcs_buf *text, gcs_error *err)
{
    return check_and_join(data, size, name, text, err);
}
