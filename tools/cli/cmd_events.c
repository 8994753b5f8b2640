/*
 * gcscope events TRACE [--format text|json] [--provider P] [--event NAME]
 *                      [--limit N]
 *
 * Every event in timestamp order: ms since trace start (TraceEvent's MSec),
 * process, thread, provider, event name, id, version and every payload
 * field. JSON: one object per line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_util.h"
#include "commands.h"

static bool event_matches(const gcs_event *ev, const char *provider, const char *name)
{
    const gcs_event_type *t = ev->type;
    if (provider && strcasecmp(provider, t->provider) != 0)
        return false;
    if (name) {
        size_t pl = strlen(t->provider);
        /* Either the bare name ("GC/Start") or "Provider/GC/Start". */
        if (strcasecmp(name, t->name) != 0 &&
            !(strncasecmp(name, t->provider, pl) == 0 && name[pl] == '/' &&
              strcasecmp(name + pl + 1, t->name) == 0))
            return false;
    }
    return true;
}

int cmd_events(int argc, char **argv)
{
    const char *path = NULL, *provider = NULL, *name = NULL;
    cli_format fmt = CLI_FMT_TEXT;
    uint64_t limit = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (!cli_parse_format(argv[++i], false, &fmt)) {
                fprintf(stderr, "gcscope events: --format takes text or json\n");
                return CLI_USAGE;
            }
        } else if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
            provider = argv[++i];
        } else if (!strcmp(argv[i], "--event") && i + 1 < argc) {
            name = argv[++i];
        } else if (!strcmp(argv[i], "--limit") && i + 1 < argc) {
            char *end;
            limit = strtoull(argv[++i], &end, 10);
            if (*end || argv[i][0] == '-') {
                fprintf(stderr, "gcscope events: --limit takes a count\n");
                return CLI_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gcscope events: unknown option %s\n", argv[i]);
            return CLI_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "gcscope events: one trace at a time\n");
            return CLI_USAGE;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: gcscope events TRACE [--format text|json] [--provider P] "
                        "[--event NAME] [--limit N]\n");
        return CLI_USAGE;
    }
    cli_trace tr;
    if (!cli_open_trace(&tr, path))
        return CLI_FAILED;
    const gcs_event *ev;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_status st;
    uint64_t printed = 0;
    while (printed < limit && (st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        if (!event_matches(ev, provider, name))
            continue;
        if (fmt == CLI_FMT_JSON)
            gcs_event_print_json(stdout, ev, NULL);
        else
            gcs_event_print_text(stdout, ev, NULL);
        printed++;
    }
    if (printed >= limit)
        st = GCS_END;
    int rc = CLI_OK;
    if (st < 0) {
        fflush(stdout);
        cli_report_error(path, &err);
        rc = CLI_FAILED;
    }
    cli_close_trace(&tr);
    return rc;
}
