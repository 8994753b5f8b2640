/*
 * io/tee.h - a source that saves what it reads (public face in
 * gcscope/live.h: gcs_tee_*), and the nettrace framing tracker it uses to
 * know where the last whole object of the saved stream ends.
 *
 * The tracker follows only the outer framing of nettrace V4/V5 (the
 * FastSerialization objects: trace header, then blocks, then the
 * NullReference end tag), never the events inside blocks. Anything else
 * (V6, netperf) is saved byte for byte without repair.
 */
#ifndef GCS_IO_TEE_H
#define GCS_IO_TEE_H

#include "gcscope/live.h"

/* Largest block the tracker accepts (a corrupt size stops the tracking). */
#define GCS_TEE_MAX_BLOCK ((uint32_t)64 << 20)
/* Longest object type name ("MetadataBlock" is 13). */
#define GCS_TEE_MAX_TYPE_NAME 64

typedef enum gcs_frame_state {
    GCS_FRAME_HEADER,     /* "Nettrace" + serialization header */
    GCS_FRAME_TAG,        /* next object tag, or the end tag */
    GCS_FRAME_TYPE_HEAD,  /* type descriptor up to its name length */
    GCS_FRAME_TYPE_NAME,  /* type name + end of type */
    GCS_FRAME_BLOCK_SIZE, /* a block's int32 size */
    GCS_FRAME_SKIP,       /* body bytes (or padding + block) */
    GCS_FRAME_END_TAG,    /* the object's EndObject tag */
    GCS_FRAME_DONE,       /* end of stream seen */
    GCS_FRAME_UNKNOWN     /* not framing we follow (V6, netperf, corrupt) */
} gcs_frame_state;

typedef struct gcs_frame_tracker {
    gcs_frame_state state;
    uint64_t pos;        /* stream offset of the next byte */
    uint64_t last_good;  /* offset after the last whole object; 0: none */
    uint64_t objects;    /* whole objects seen */
    uint64_t skip_left;
    uint8_t acc[GCS_TEE_MAX_TYPE_NAME + 16];
    size_t acc_len, acc_need;
    char why_unknown[96];
} gcs_frame_tracker;

void gcs_frame_init(gcs_frame_tracker *t);
/* Follows n more bytes of the stream. */
void gcs_frame_feed(gcs_frame_tracker *t, const uint8_t *p, size_t n);

#endif
