/* tools/cli/commands.h - the CLI's subcommands (each in cmd_<name>.c). */
#ifndef GCS_CLI_COMMANDS_H
#define GCS_CLI_COMMANDS_H

/* Each returns the process exit code: 0 ok, 1 usage, 2 bad input/failure. */
typedef int (*gcs_cli_cmd_fn)(int argc, char **argv);

typedef struct gcs_cli_command {
    const char *name;
    gcs_cli_cmd_fn run;
    const char *summary;
} gcs_cli_command;

int cmd_info(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_objects(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_record(int argc, char **argv);

#endif
