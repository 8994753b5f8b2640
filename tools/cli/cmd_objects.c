/*
 * gcscope objects TRACE [--format table|json|csv]
 *
 * Follows the sampled objects of a trace across GCs (moved and surviving
 * ranges) and tells, per type, how many died young, in which GC, how long
 * they lived, which survived to the end and which died in gen2.
 */
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static int usage(void)
{
    fprintf(stderr, "usage: gcscope objects TRACE [--format table|json|csv]\n");
    return CLI_USAGE;
}

int cmd_objects(int argc, char **argv)
{
    const char *path = NULL;
    cli_format fmt = CLI_FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (!cli_parse_format(argv[++i], true, &fmt)) {
                fprintf(stderr, "gcscope objects: --format takes table, json or csv\n");
                return CLI_USAGE;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gcscope objects: unknown option %s\n", argv[i]);
            return usage();
        } else if (!path) {
            path = argv[i];
        } else {
            fprintf(stderr, "gcscope objects: one trace at a time\n");
            return CLI_USAGE;
        }
    }
    if (!path)
        return usage();

    gcs_error err;
    gcs_error_clear(&err);
    gcs_objects *an = gcs_objects_new(&err);
    if (!an) {
        cli_report_error(path, &err);
        return CLI_FAILED;
    }
    cli_trace tr;
    if (!cli_open_trace(&tr, path)) {
        gcs_objects_free(an);
        return CLI_FAILED;
    }
    const gcs_event *ev;
    gcs_status st;
    while ((st = gcs_reader_next(tr.reader, &ev, &err)) == GCS_OK) {
        st = gcs_objects_feed(an, ev, &err);
        if (st != GCS_OK)
            break;
    }
    int rc = CLI_OK;
    if (st < 0) {
        /* Events before the error were used: report them, and say why it stopped. */
        cli_report_error(path, &err);
        rc = CLI_FAILED;
        if (!gcs_reader_info(tr.reader)) {
            cli_close_trace(&tr);
            gcs_objects_free(an);
            return rc;
        }
    }
    gcs_error_clear(&err);
    if (gcs_objects_finish(an, &err) != GCS_OK) {
        cli_report_error(path, &err);
        rc = CLI_FAILED;
    } else {
        gcs_objects_format f = fmt == CLI_FMT_JSON  ? GCS_OBJECTS_JSON
                               : fmt == CLI_FMT_CSV ? GCS_OBJECTS_CSV
                                                    : GCS_OBJECTS_TABLE;
        if (gcs_objects_report(an, stdout, f, &err) != GCS_OK) {
            fprintf(stderr, "gcscope objects: %s\n", err.reason);
            rc = CLI_FAILED;
        }
    }
    cli_close_trace(&tr);
    gcs_objects_free(an);
    return rc;
}
