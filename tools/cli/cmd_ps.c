/*
 * gcscope ps - the .NET processes on this machine that have a diagnostic
 * port: pid, name, command line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

static int run_ps(int argc, char **argv);

const cli_command cmd_ps = {
    .name = "ps",
    .summary = ".NET processes that have a diagnostic port",
    .notes = "Lists the processes with a diagnostic socket in $TMPDIR or /tmp.\n",
    .run = run_ps,
};

static int run_ps(int argc, char **argv)
{
    cli_args a;
    cli_args_init(&a, &cmd_ps, argc, argv);
    if (cli_args_next(&a) == CLI_ARG_STOP) /* no options but --help, no operands */
        return a.exit_code;
    gcs_diag_process *list;
    size_t n;
    gcs_error err;
    gcs_error_clear(&err);
    if (gcs_diag_list_processes(&list, &n, &err) != GCS_OK) {
        fprintf(stderr, "gcscope ps: %s\n", err.reason);
        return CLI_FAILED;
    }
    printf("%8s  %-16s %s\n", "PID", "NAME", "COMMAND LINE");
    for (size_t i = 0; i < n; i++)
        printf("%8u  %-16s %s\n", (unsigned)list[i].pid, list[i].name, list[i].command_line);
    free(list);
    return CLI_OK;
}
