/*
 * decode/reader_names.h - gives each new event type its display name and
 * payload schema: the trace's own metadata when it has one, else the
 * built-in table of the runtime's manifest. Called once per metadata row.
 */
#ifndef GCS_DECODE_READER_NAMES_H
#define GCS_DECODE_READER_NAMES_H

#include "base/buf.h"
#include "format/container.h"

/* Fills t->name, t->fields, t->field_count, t->schema_from_trace, t->known
 * (and opcode/level/keywords when the trace left them out) from def.
 * Strings are allocated in arena. */
void gcs_names_resolve(gcs_event_type *t, const gcs_meta_def *def, gcs_arena *arena);

#endif
