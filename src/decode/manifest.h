/*
 * decode/manifest.h - the built-in table of the .NET runtime providers'
 * events, whose EventPipe metadata carries neither a name nor fields.
 *
 * The table (clr_manifest_table.c) is generated from the runtime's ETW
 * manifest by scripts/gen-clr-manifest.py. The reader calls these lookups
 * once per metadata row (not per event): each is a binary search or a short
 * scan over constant data, allocation-free and thread-safe.
 */
#ifndef GCS_DECODE_MANIFEST_H
#define GCS_DECODE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcscope/decode.h"
#include "gcscope/reader.h"

/* Index into gcs_builtin_provider_names. */
enum {
    GCS_PROV_RUNTIME = 0,  /* Microsoft-Windows-DotNETRuntime */
    GCS_PROV_RUNDOWN = 1,  /* Microsoft-Windows-DotNETRuntimeRundown */
    GCS_PROV_PRIVATE = 2,  /* Microsoft-Windows-DotNETRuntimePrivate */
    GCS_PROV_COUNT = 3
};

typedef struct gcs_map_entry {
    uint64_t value;
    const char *name;
} gcs_map_entry;

/* A manifest valueMap (value -> name) or bitMap (bit -> name). */
typedef struct gcs_builtin_map {
    const char *name;
    bool is_bitmap;
    const gcs_map_entry *entries; /* sorted by value */
    uint32_t entry_count;
} gcs_builtin_map;

/* One (provider, event id, version) of the manifest. */
typedef struct gcs_builtin_event {
    uint8_t provider;        /* GCS_PROV_* */
    uint32_t event_id;
    uint32_t version;
    uint64_t keywords;
    uint32_t level;          /* 0 LogAlways .. 5 Verbose */
    uint32_t opcode;         /* numeric opcode as the runtime writes it */
    const char *task_name;   /* "GC" */
    const char *opcode_name; /* "Start", "" when the event has no opcode */
    const char *name;        /* TraceEvent's display name: "GC/Start" */
    const gcs_field *fields; /* payload schema in order (NULL if empty) */
    uint32_t field_count;
} gcs_builtin_event;

/* Generated data (sorted by provider, event id, version). */
extern const gcs_builtin_event gcs_builtin_events[];
extern const size_t gcs_builtin_event_count;
extern const gcs_builtin_map gcs_builtin_maps[];
extern const size_t gcs_builtin_map_count;
extern const char *const gcs_builtin_provider_names[GCS_PROV_COUNT];

/*
 * The built-in description of an event: the exact version if the table has
 * it, else the highest known version below it (a newer runtime only appends
 * fields, so the known prefix still decodes), else NULL (unknown provider or
 * id, or a version below every known one).
 */
const gcs_builtin_event *gcs_builtin_lookup(const char *provider, uint32_t event_id,
                                            uint32_t version);

/*
 * The event an LTTng tracepoint of the runtime stands for. LTTng names
 * carry the manifest's event symbol, not its id: "GCStart" (version from
 * the "_V2" suffix, which the caller strips). The table keeps TraceEvent's
 * task/opcode names instead of symbols, so the symbol is matched against
 * task+opcode ("GC"+"Start"), the manifest's Begin/End spellings of
 * TraceEvent's Start/Stop ("GCRestartEEBegin"), the opcode alone
 * ("ModuleLoad"), and a short list of symbols that follow neither rule
 * (checked against TraceEvent's CtfTraceEventSource on the CTF fixtures).
 * Returns the entry for version (as gcs_builtin_lookup), or NULL.
 */
const gcs_builtin_event *gcs_builtin_lookup_symbol(const char *provider, const char *symbol,
                                                   uint32_t version);

/* True for the runtime providers whose events carry no metadata of their own. */
bool gcs_builtin_provider(const char *provider);

/*
 * An event TraceEvent names with one of the parsers TraceLog registers for
 * every trace (sample profiler, TPL) instead of from the trace's metadata:
 * its name is task_name, or "task_name/opcode_name" when opcode is not 0.
 */
typedef struct gcs_te_parser_event {
    const char *provider;
    uint32_t event_id;
    const char *task_name;   /* "TaskWait" */
    uint32_t opcode;         /* the parser's opcode (0 = Info) */
    const char *opcode_name; /* "Send"; "" for opcode 0 */
    const gcs_field *fields; /* schema for traces whose metadata has none, or NULL */
    uint32_t field_count;
    /* A top-level field of the trace's schema that the parser shows by the
     * names of an enum (TaskWait/Send Behavior=Asynchronous), or NULL. */
    const char *enum_field;
    const char *enum_map;    /* its map (gcs_map_lookup) */
} gcs_te_parser_event;

/* The parser's description of (provider, event id), or NULL: the name then
 * comes from the metadata (gcs_event_display_name). Any version. */
const gcs_te_parser_event *gcs_te_parser_lookup(const char *provider, uint32_t event_id);

/* The map of that name, or NULL. */
const gcs_builtin_map *gcs_builtin_map_find(const char *map_name);

#endif
