/*
 * decode/reader_names.c - names and schemas for new event types: the
 * trace's own metadata when it describes the fields, else the built-in
 * table of the runtime's manifest; names always as TraceEvent shows them.
 */
#include "decode/reader_names.h"

#include <string.h>

#include "decode/manifest.h"
#include "gcscope/decode.h"

/* The trace's schema with p's enum map on the field p names (a copy in the
 * arena), or the schema itself when no field has that name or memory ran
 * out (the values then print as numbers). */
static const gcs_field *with_enum_map(const gcs_meta_def *def, const gcs_te_parser_event *p,
                                      gcs_arena *arena)
{
    for (uint32_t i = 0; i < def->field_count; i++) {
        const gcs_field *f = &def->fields[i];
        if (f->children || f->repeat != GCS_REPEAT_ONE || !f->name ||
            strcmp(f->name, p->enum_field) != 0)
            continue;
        gcs_field *copy = gcs_arena_alloc(arena, (size_t)def->field_count * sizeof *copy);
        if (!copy)
            return def->fields;
        memcpy(copy, def->fields, (size_t)def->field_count * sizeof *copy);
        copy[i].map_name = p->enum_map;
        return copy;
    }
    return def->fields;
}

void gcs_names_resolve(gcs_event_type *t, const gcs_meta_def *def, gcs_arena *arena)
{
    char buf[256];
    const gcs_builtin_event *b = NULL;
    const gcs_te_parser_event *p = NULL;
    uint32_t event_id = def->event_id;
    const char *meta_name = def->event_name;
    if (def->id_from_name) {
        b = gcs_builtin_lookup_symbol(def->provider, def->event_name, def->version);
        if (b) {
            event_id = b->event_id;
            t->event_id = event_id;
            meta_name = ""; /* named as TraceEvent names the manifest's event */
        }
    } else if (gcs_builtin_provider(def->provider)) {
        b = gcs_builtin_lookup(def->provider, def->event_id, def->version);
    } else {
        p = gcs_te_parser_lookup(def->provider, def->event_id);
    }
    gcs_event_display_name(def->provider, event_id, def->version, meta_name, def->opcode,
                           def->has_opcode, buf, sizeof buf);
    t->name = gcs_arena_strndup(arena, buf, strlen(buf));
    if (def->field_count > 0) {
        t->fields = def->fields;
        t->field_count = def->field_count;
        t->schema_from_trace = true;
        if (p && p->enum_field)
            t->fields = with_enum_map(def, p, arena);
    } else if (b) {
        t->fields = b->fields;
        t->field_count = b->field_count;
        t->schema_from_trace = false;
    } else if (p && p->field_count > 0) {
        /* The sample profiler's metadata describes no fields. */
        t->fields = p->fields;
        t->field_count = p->field_count;
        t->schema_from_trace = false;
    } else {
        t->fields = NULL;
        t->field_count = 0;
        t->schema_from_trace = false;
    }
    if (b) {
        /* Runtime events leave these out of their metadata (V5 and older). */
        if (!def->has_opcode)
            t->opcode = b->opcode;
        if (t->level == 0)
            t->level = b->level;
        if (t->keywords == 0)
            t->keywords = b->keywords;
    }
    if (p && !def->has_opcode)
        t->opcode = p->opcode;
    t->known = b != NULL || p != NULL || (def->event_name && def->event_name[0]) || def->field_count > 0;
}
