/* gcscope - command-line front end. Uses only the public API (include/). */
#include <stdio.h>
#include <string.h>

#include "gcscope.h"
#include "commands.h"

/* Subcommands: one line each, defined in cmd_<name>.c. */
static const gcs_cli_command commands[] = {
    {"info", cmd_info, "what a trace is and which events it holds"},
    {"events", cmd_events, "every event in timestamp order with decoded fields"},
    {"stats", cmd_stats, "per-GC statistics (TraceEvent GCStats)"},
    {"objects", cmd_objects, "object lifetimes by type across GCs"},
    {"ps", cmd_ps, ".NET processes that have a diagnostic port"},
    {"live", cmd_live, "attach to a running process and print each GC as it completes"},
    {"record", cmd_record, "save a running process's GC events as a .nettrace file"},
    {NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "gcscope %s - understand the .NET garbage collector from its traces\n\n"
               "usage: gcscope COMMAND [options]\n\ncommands:\n",
            GCS_VERSION_STRING);
    for (const gcs_cli_command *c = commands; c->name; c++)
        fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 1 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gcscope %s\n", GCS_VERSION_STRING);
        return 0;
    }
    for (const gcs_cli_command *c = commands; c->name; c++)
        if (!strcmp(c->name, argv[1]))
            return c->run(argc - 1, argv + 1);
    fprintf(stderr, "gcscope: unknown command '%s' (see gcscope --help)\n", argv[1]);
    return 1;
}
