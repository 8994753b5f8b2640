/* gcscope - command-line front end. Uses only the public API (include/). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "gcscope.h"

static int run_help(int argc, char **argv);

static const cli_command cmd_help = {
    .name = "help",
    .operands = "[COMMAND]",
    .max_operands = 1,
    .summary = "list the commands, or print COMMAND's usage (as COMMAND --help)",
    .run = run_help,
};

/* Subcommands, in the order `gcscope help` lists them. */
static const cli_command *const commands[] = {
    &cmd_info, &cmd_events, &cmd_stats, &cmd_objects, &cmd_allocs, &cmd_ps, &cmd_live, &cmd_record,
    &cmd_report, &cmd_compare, &cmd_check, &cmd_profile, &cmd_help,
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static void print_commands(FILE *f)
{
    fprintf(f,
            "gcscope %s - understand the .NET garbage collector from its traces\n\n"
            "usage: gcscope COMMAND [options] [operands]\n"
            "       gcscope COMMAND --help   (or gcscope help COMMAND)\n"
            "       gcscope --version\n\ncommands:\n",
            GCS_VERSION_STRING);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\n%s\n", cli_exit_codes_line);
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(commands[i]->name, name))
            return commands[i];
    return NULL;
}

/* gcscope help [COMMAND]: the list on stdout, or COMMAND's usage exactly
 * as COMMAND --help prints it. */
static int run_help(int argc, char **argv)
{
    cli_args a;
    cli_args_init(&a, &cmd_help, argc, argv);
    if (cli_args_next(&a) == CLI_ARG_STOP) /* it has no options but --help */
        return a.exit_code;
    const char *topic = a.operand[0];
    if (!topic) {
        print_commands(stdout);
        return CLI_OK;
    }
    const cli_command *c = find_command(topic);
    if (!c)
        return cli_usage_error(&cmd_help, "unknown command '%s'", topic);
    cli_print_usage(stdout, c);
    return CLI_OK;
}

/* SIGINT, SIGTERM, SIGHUP: the readers' temporary files (an extracted
 * .trace.zip) go with the process, which then dies of the signal as it
 * would have. */
static void on_fatal_signal(int sig)
{
    gcs_remove_temporary_files();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void remove_temporary_files_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
            continue; /* ignored by whoever started us (nohup, a background job) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof sigs / sizeof sigs[0]; j++)
            sigaddset(&sa.sa_mask, sigs[j]); /* one cleanup at a time */
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        /* No command: the list, but as an error (nothing was done). */
        print_commands(stderr);
        return CLI_USAGE;
    }
    const char *first = argv[1];
    if (!strcmp(first, "-h") || !strcmp(first, "--help")) {
        print_commands(stdout);
        return CLI_OK;
    }
    if (!strcmp(first, "-V") || !strcmp(first, "--version")) {
        printf("gcscope %s\n", GCS_VERSION_STRING);
        return CLI_OK;
    }
    const cli_command *c = find_command(first);
    if (c) {
        remove_temporary_files_on_signals();
        /* Into a file or a pipe, output goes out 64 KiB at a time (stdio's
         * 4 KiB made `stats` on 179,454 GCs spend 4,733 write calls);
         * commands that must show a line at once flush it themselves. */
        static char out_buffer[1 << 16];
        if (!isatty(STDOUT_FILENO))
            setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
        return c->run(argc - 1, argv + 1);
    }
    if (first[0] == '-')
        fprintf(stderr, "gcscope: unknown option %s\n", first);
    else
        fprintf(stderr, "gcscope: unknown command '%s'\n", first);
    print_commands(stderr);
    return CLI_USAGE;
}
