/*
 * gcscope ps - the .NET processes on this machine that have a diagnostic
 * port: pid, name, command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gcscope.h"

int cmd_ps(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "-h") && strcmp(argv[1], "--help"))
            fprintf(stderr, "gcscope ps: takes no arguments\n");
        fprintf(stderr, "usage: gcscope ps\n  lists .NET processes with a diagnostic socket in "
                        "$TMPDIR or /tmp\n");
        return 1;
    }
    gcs_diag_process *list;
    size_t n;
    gcs_error err;
    gcs_error_clear(&err);
    if (gcs_diag_list_processes(&list, &n, &err) != GCS_OK) {
        fprintf(stderr, "gcscope ps: %s\n", err.reason);
        return 2;
    }
    printf("%8s  %-16s %s\n", "PID", "NAME", "COMMAND LINE");
    for (size_t i = 0; i < n; i++)
        printf("%8u  %-16s %s\n", (unsigned)list[i].pid, list[i].name, list[i].command_line);
    free(list);
    return 0;
}
