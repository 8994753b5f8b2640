/*
 * io/diag_ipc.h - the .NET diagnostic IPC protocol: message framing and
 * the EventPipe commands (internal; the public face is gcscope/live.h).
 *
 * A message is a 20-byte header - magic "DOTNET_IPC_V1\0" (14 bytes),
 * uint16 size (header + payload), uint8 command set, uint8 command id,
 * uint16 reserved (0) - then the payload. Numbers are little-endian.
 * The runtime answers a command with one message: command set 0xFF
 * (Server), id 0x00 (OK, command-specific payload) or 0xFF (Error, an
 * int32 HRESULT), then may keep using the connection (the event stream).
 */
#ifndef GCS_IO_DIAG_IPC_H
#define GCS_IO_DIAG_IPC_H

#include "gcscope/core.h"
#include "gcscope/live.h"

#define GCS_IPC_HEADER_SIZE 20
#define GCS_IPC_MAGIC_SIZE 14
#define GCS_IPC_MAX_MESSAGE 65535 /* size is a uint16 */

#define GCS_IPC_SET_EVENTPIPE 0x02
#define GCS_IPC_SET_SERVER 0xFF
#define GCS_IPC_EP_STOP_TRACING 0x01
#define GCS_IPC_EP_COLLECT_TRACING 0x02
#define GCS_IPC_EP_COLLECT_TRACING2 0x03
#define GCS_IPC_SERVER_OK 0x00
#define GCS_IPC_SERVER_ERROR 0xFF

/* HRESULTs the diagnostic server sends. */
#define GCS_IPC_E_BAD_ENCODING 0x80131384u
#define GCS_IPC_E_UNKNOWN_COMMAND 0x80131385u
#define GCS_IPC_E_UNKNOWN_MAGIC 0x80131386u
#define GCS_IPC_E_UNKNOWN_ERROR 0x80131387u

extern const uint8_t gcs_ipc_magic[GCS_IPC_MAGIC_SIZE];

typedef struct gcs_ipc_header {
    uint16_t size;
    uint8_t command_set;
    uint8_t command_id;
    uint16_t reserved;
} gcs_ipc_header;

/* A reply: header and up to 64 payload bytes (longer payloads are read
 * and counted but not kept: no reply we use is longer). */
#define GCS_IPC_REPLY_KEEP 64
typedef struct gcs_ipc_reply {
    gcs_ipc_header header;
    uint8_t payload[GCS_IPC_REPLY_KEEP];
    size_t payload_size; /* header.size - 20 */
} gcs_ipc_reply;

/* Writes a 20-byte header into out. */
void gcs_ipc_write_header(uint8_t out[GCS_IPC_HEADER_SIZE], uint16_t size, uint8_t command_set,
                          uint8_t command_id);

/* Parses a 20-byte header: checks magic and that size >= 20. The errors
 * say "not a .NET diagnostic server" (bad magic) or give the bad size. */
gcs_status gcs_ipc_parse_header(const uint8_t *p, size_t n, gcs_ipc_header *h, gcs_error *err);

/*
 * Encodes a CollectTracing (command_id 0x02) or CollectTracing2 (0x03)
 * message for cfg into out. *len gets the message size. GCS_ERR_ARG if a
 * provider is invalid, GCS_ERR_LIMIT if it does not fit in one message.
 */
gcs_status gcs_ipc_encode_collect(const gcs_session_config *cfg, uint8_t command_id,
                                  uint8_t *out, size_t cap, size_t *len, gcs_error *err);

/* Encodes StopTracing for session_id (28 bytes). */
void gcs_ipc_encode_stop(uint64_t session_id, uint8_t out[28]);

/*
 * Reads one reply message from fd (blocking or not: waits with poll up
 * to timeout_ms for each piece). Reads exactly header.size bytes, so
 * whatever follows (the event stream) stays unread.
 */
gcs_status gcs_ipc_read_reply(int fd, int timeout_ms, gcs_ipc_reply *reply, gcs_error *err);

/*
 * Interprets the reply to CollectTracing: GCS_OK with *id the session id;
 * an error reply gives GCS_ERR_UNSUPPORTED with *refused its HRESULT;
 * anything else (another command, a short payload) GCS_ERR_CORRUPT.
 */
gcs_status gcs_ipc_collect_reply(const gcs_ipc_reply *reply, uint64_t *id, uint32_t *refused,
                                 gcs_error *err);

/* Interprets the reply to StopTracing of session_id (named in errors). */
gcs_status gcs_ipc_stop_reply(const gcs_ipc_reply *reply, uint64_t session_id, gcs_error *err);

/* Text for a diagnostic-server HRESULT ("unknown command", ...), or NULL. */
const char *gcs_ipc_hresult_name(uint32_t hresult);

/* Connects to a Unix socket path; clear reasons for missing, refused,
 * permission. Returns the fd or -1. */
int gcs_ipc_connect(const char *path, gcs_error *err);

#endif
