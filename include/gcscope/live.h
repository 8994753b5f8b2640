/*
 * gcscope/live.h - attaching to a running .NET process through its
 * diagnostic port and streaming an EventPipe session from it.
 *
 *   gcs_session_config cfg;
 *   gcs_session_config_gc(&cfg, false);
 *   gcs_session *s = gcs_session_start(pid, &cfg, &err);
 *   gcs_reader *r = gcs_reader_new(gcs_session_source(s), NULL, &err);
 *   // gcs_reader_next: GCS_AGAIN -> poll(gcs_session_fd(s)) and retry
 *   gcs_session_stop(s, &err);   // StopTracing; keep reading to the end
 *   gcs_reader_free(r); gcs_session_free(s);
 *
 * The stream is the nettrace format byte for byte, so gcs_tee_open can
 * save it to a file while it is being analyzed.
 */
#ifndef GCSCOPE_LIVE_H
#define GCSCOPE_LIVE_H

#include "gcscope/core.h"
#include "gcscope/gc.h"
#include "gcscope/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One provider to enable in a session. */
typedef struct gcs_diag_provider {
    const char *name;        /* e.g. "Microsoft-Windows-DotNETRuntime" */
    uint64_t keywords;
    uint32_t level;          /* 0..5; 5 = Verbose */
    const char *filter_data; /* NULL or "" for none */
} gcs_diag_provider;

#define GCS_DIAG_MAX_PROVIDERS 16

/* What an EventPipe session collects. */
typedef struct gcs_session_config {
    uint32_t circular_buffer_mb;  /* runtime-side buffer (default 256) */
    bool request_rundown;         /* rundown events at stop (method names) */
    gcs_diag_provider providers[GCS_DIAG_MAX_PROVIDERS];
    size_t provider_count;
    int reply_timeout_ms;         /* wait for the runtime's answer (default 10000) */
} gcs_session_config;

/* The runtime's GC keyword (Microsoft-Windows-DotNETRuntime). */
#define GCS_KEYWORD_GC 0x1ull

/*
 * Fills cfg with what GC analysis needs: Microsoft-Windows-DotNETRuntime,
 * GC keyword, level 4 (Informational: GC/Start..Stop, SuspendEE/RestartEE,
 * HeapStats, per-heap and global history), or level 5 when
 * allocation_ticks (adds GC/AllocationTick, about one event per 100 KB
 * allocated); plus Microsoft-Windows-DotNETRuntimePrivate, GC keyword,
 * level 5 (background GC phases). No rundown.
 */
void gcs_session_config_gc(gcs_session_config *cfg, bool allocation_ticks);

/* A .NET process that has a diagnostic socket. */
typedef struct gcs_diag_process {
    uint32_t pid;
    char name[64];           /* /proc/PID/comm */
    char command_line[512];  /* /proc/PID/cmdline, arguments joined by spaces (truncated) */
    char socket_path[256];
} gcs_diag_process;

/* The folder holding diagnostic sockets: $TMPDIR if set and not empty,
 * else /tmp. */
const char *gcs_diag_socket_dir(void);

/*
 * Finds the diagnostic socket of pid (dotnet-diagnostic-PID-KEY-socket).
 * When several exist (stale ones of an earlier process with the same pid),
 * the one whose KEY is the process start time (/proc/PID/stat) wins, else
 * the highest KEY. Errors: no such process, no socket (one clear reason).
 */
gcs_status gcs_diag_find_socket(uint32_t pid, char *path, size_t path_cap, gcs_error *err);

/*
 * Lists the live .NET processes that have a diagnostic socket, by pid.
 * *out is malloc'ed (free it with free()); *count may be 0.
 */
gcs_status gcs_diag_list_processes(gcs_diag_process **out, size_t *count, gcs_error *err);

/* An EventPipe streaming session. */
typedef struct gcs_session gcs_session;

/*
 * Connects to pid's diagnostic port and starts a session (CollectTracing2,
 * falling back to CollectTracing when the runtime does not know it). On
 * success the nettrace stream follows on the session's socket. Errors, one
 * clear reason each: no such process, no diagnostic socket, permission
 * denied, not a .NET runtime (bad reply), the runtime refused (its HRESULT).
 */
gcs_session *gcs_session_start(uint32_t pid, const gcs_session_config *cfg, gcs_error *err);

/* The same on an explicit socket path (custom ports, tests). */
gcs_session *gcs_session_start_at(const char *socket_path, const gcs_session_config *cfg,
                                  gcs_error *err);

/* Session id the runtime gave. */
uint64_t gcs_session_id(const gcs_session *s);

/* Which EventPipe command started it: 0x0203 (CollectTracing2) or 0x0202. */
uint16_t gcs_session_command(const gcs_session *s);

/* The stream's descriptor (non-blocking) to poll() for POLLIN. */
int gcs_session_fd(const gcs_session *s);

/* The stream as a source: GCS_AGAIN when no data yet, GCS_END when the
 * runtime closed it. Owned by the session. */
gcs_source *gcs_session_source(gcs_session *s);

/*
 * Asks the runtime to stop the session (StopTracing on a new connection)
 * and returns without waiting: the runtime answers only after it has
 * flushed the session into the stream, so keep reading the stream until
 * GCS_END. Calling it again does nothing. A process that is already gone
 * is not an error (GCS_OK).
 */
gcs_status gcs_session_stop(gcs_session *s, gcs_error *err);

/* The runtime's answer to the stop: GCS_AGAIN while it has not come,
 * GCS_OK when acknowledged, an error (e.g. refused, with its HRESULT). */
gcs_status gcs_session_stop_result(gcs_session *s, gcs_error *err);

/* Closes the stream. NULL is allowed. */
void gcs_session_free(gcs_session *s);

/*
 * A tee: a source that reads from another and writes every byte it reads
 * to a file, so a live stream is saved as a .nettrace file while it is
 * analyzed.
 */
typedef struct gcs_tee gcs_tee;

/* What gcs_tee_close did to leave a valid file. */
typedef struct gcs_tee_result {
    uint64_t bytes_received;  /* bytes read from the inner source */
    uint64_t bytes_kept;      /* size of the file left behind */
    uint64_t objects;         /* whole nettrace objects (trace header + blocks) */
    bool stream_complete;     /* the stream carried its own end marker */
    bool repaired;            /* cut to the last whole block and end marker added */
    bool framing_known;       /* nettrace V4/V5 framing was followed */
} gcs_tee_result;

/* Creates path (truncating it) and wraps inner (not owned). */
gcs_tee *gcs_tee_open(gcs_source *inner, const char *path, gcs_error *err);

/* The source to read through (owned by the tee). */
gcs_source *gcs_tee_source(gcs_tee *t);

/* Reads up to max bytes through the tee (saving them) without analyzing
 * them: for going on saving after the analysis stopped. Same statuses as
 * a read (GCS_OK with *got > 0, GCS_AGAIN, GCS_END, error). */
gcs_status gcs_tee_pump(gcs_tee *t, size_t max, size_t *got);

/* Bytes passed through so far. */
uint64_t gcs_tee_bytes(const gcs_tee *t);

/*
 * Finishes the file and frees the tee. If the stream ended without its
 * end marker (the process exited, or the session was cut), the file is
 * cut after the last whole object and the end marker appended, so it
 * reads as a complete trace. res may be NULL.
 */
gcs_status gcs_tee_close(gcs_tee *t, gcs_tee_result *res, gcs_error *err);

/* ---- watching a process: the session loop (src/live/watch.c) ---- */

/* What to watch and when to stop. */
typedef struct gcs_watch_options {
    uint32_t pid;             /* the process, unless socket_path or replay_path */
    const char *socket_path;  /* attach through this diagnostic socket instead */
    const char *replay_path;  /* read this saved stream as a live one (no attach) */
    const char *out_path;     /* save the stream to this file (NULL: do not) */
    double duration_s;        /* stop after this long (0: no limit) */
    double stop_on_pause_ms;  /* stop after the first GC whose pause is longer (0: never) */
    /* Keep the GC records in a temporary file (gcs_gc_options.spill_gcs):
     * memory stays that of the GCs in flight however long the session.
     * gcs_watch_analyzer's runtimes then have no gcs array (read them with
     * gcs_gc_process_gcs), which the HTML report needs. */
    bool spill_gcs;
    gcs_session_config config;
} gcs_watch_options;

/* How a watch ended (gcs_watch_get_outcome, complete once gcs_watch_next
 * returned GCS_END). */
typedef struct gcs_watch_outcome {
    char stop_reason[160];    /* why it was stopped ("" : nobody stopped it) */
    char stop_error[256];     /* StopTracing failed or was refused ("" : fine) */
    bool pause_stop;          /* stop_on_pause_ms stopped it: */
    int32_t pause_gc;         /*   at this GC */
    double pause_ms;          /*   pausing this long */
    bool process_exited;      /* the stream ended because the process exited */
    bool runtime_ended;       /* the runtime ended the stream (process alive) */
    bool ended_clean;         /* the stream carried its end marker */
    bool cut;                 /* it stopped inside a unit (runtime stopped abruptly) */
    bool drain_timeout;       /* after the stop, the stream did not end within 15 s */
    bool drain_abandoned;     /* stopped a second time: not waiting for the end */
    char analysis_error[320]; /* why the analysis stopped early ("" : it did not) */
    bool analysis_failed;     /* ... and that fails the watch (exit code 2 material) */
    gcs_reader_stats stream;  /* events, lost events, bytes */
    double elapsed_s;
    bool saved;               /* out_path written (save says how) */
    gcs_tee_result save;
    char save_error[256];     /* out_path could not be finished */
} gcs_watch_outcome;

typedef struct gcs_watch gcs_watch;

/*
 * Attaches to the process (or opens the saved stream) and starts saving
 * and analyzing. Errors are those of gcs_session_start, of opening the
 * files, or a stream the reader cannot read when nothing is saved.
 */
gcs_watch *gcs_watch_start(const gcs_watch_options *opts, gcs_error *err);

/* The runtime's session id (0 for a replay). */
uint64_t gcs_watch_session_id(const gcs_watch *w);

/*
 * Runs the watch until there is something to say:
 *   GCS_OK     *gc is the next GC whose numbers are final (the GCs
 *              `gcscope stats` reports, each once, in GCStart order);
 *   GCS_AGAIN  nothing yet (it waited up to 100 ms for data, or a busy
 *              stream settled no GC, or a signal came): check your own
 *              stop conditions, call again;
 *   GCS_END    over (stopped and drained, duration, pause, process exit,
 *              end of stream): the outcome and the analyzer are final;
 *   error      the analysis stopped (err says why; once): call again, the
 *              stream is still saved to the end when out_path is set.
 */
gcs_status gcs_watch_next(gcs_watch *w, gcs_gc_settled *gc, gcs_error *err);

/* Stops the watch (StopTracing; reading goes on until the runtime ends
 * the stream, 15 s at most); reason goes to the outcome. A second call
 * stops waiting for the end of the stream. */
void gcs_watch_stop(gcs_watch *w, const char *reason);

const gcs_watch_outcome *gcs_watch_get_outcome(const gcs_watch *w);

/* The finished analysis of everything read (for the summary), after
 * GCS_END; NULL before, or when the analysis stopped for lack of memory. */
const gcs_gc_analyzer *gcs_watch_analyzer(const gcs_watch *w);

/* The finalized objects by type of everything read (gcscope/finalized.h),
 * finished, after GCS_END; NULL before, or when memory was short. */
const struct gcs_finalized *gcs_watch_finalized(const gcs_watch *w);

/* Frees everything (stops the session if still running). NULL allowed. */
void gcs_watch_free(gcs_watch *w);

#ifdef __cplusplus
}
#endif
#endif
