/* Temporary: header-only printing until the decode layer lands. */
#include <inttypes.h>
#include "cli_util.h"
void gcs_event_print_text(FILE *f, const gcs_event *ev);
void gcs_event_print_json(FILE *f, const gcs_event *ev);
void gcs_event_print_text(FILE *f, const gcs_event *ev)
{
    fprintf(f, "%.3f %u %" PRIu64 " %s/%s id=%u v=%u size=%u\n", ev->msec, ev->pid, ev->tid,
            ev->type->provider, ev->type->name, ev->type->event_id, ev->type->version,
            ev->payload_size);
}
void gcs_event_print_json(FILE *f, const gcs_event *ev) { gcs_event_print_text(f, ev); }
