#include "decode/reader_names.h"

#include <stdio.h>
#include <string.h>

void gcs_names_resolve(gcs_event_type *t, const gcs_meta_def *def, gcs_arena *arena)
{
    t->fields = def->fields;
    t->field_count = def->field_count;
    t->schema_from_trace = def->field_count > 0;
    if (def->event_name && def->event_name[0]) {
        t->name = def->event_name;
        t->known = true;
    } else {
        char buf[64];
        snprintf(buf, sizeof buf, "EventID(%u)", def->event_id);
        t->name = gcs_arena_strndup(arena, buf, strlen(buf));
        t->known = false;
    }
}
