/*
 * gcscope live PID [options] - attach to a running .NET process and print
 * each GC as it completes; Ctrl-C or SIGTERM stops the session and prints
 * the rollup of what was seen.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "live_watch.h"

static int usage_to(FILE *f, int rc)
{
    fprintf(f, "usage: gcscope live PID [options]\n"
                    "  attach to a .NET process and print each GC as it completes;\n"
                    "  Ctrl-C stops and prints the summary\n"
                    "  --replay FILE          analyze a saved stream the same way (no attach)\n%s",
            live_common_usage);
    return rc;
}

static int usage(void) { return usage_to(stderr, 1); }

/* Parses a pid operand; false if it is not one. */
bool live_parse_pid(const char *s, uint32_t *pid);
bool live_parse_pid(const char *s, uint32_t *pid)
{
    char *end;
    if (!*s || *s == '-' || *s == '+')
        return false;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v == 0 || v > 0x7fffffffUL)
        return false;
    *pid = (uint32_t)v;
    return true;
}

int cmd_live(int argc, char **argv)
{
    live_opts o;
    memset(&o, 0, sizeof o);
    o.cmd = "live";
    o.print_rows = true;
    gcs_session_config_gc(&o.watch.config, false);
    bool have_pid = false;
    for (int i = 1; i < argc; i++) {
        int r = live_parse_common(&o, argc, argv, &i);
        if (r < 0)
            return 1;
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage_to(stdout, 0);
        if (!strcmp(argv[i], "--replay") && i + 1 < argc) {
            o.watch.replay_path = argv[++i];
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "gcscope live: unknown option %s\n", argv[i]);
            return usage();
        }
        if (have_pid || !live_parse_pid(argv[i], &o.watch.pid)) {
            fprintf(stderr, "gcscope live: '%s' is not a process id\n", argv[i]);
            return 1;
        }
        have_pid = true;
    }
    if (!have_pid && !o.watch.socket_path && !o.watch.replay_path)
        return usage();
    if (o.watch.stop_on_pause_ms > 0 && !o.watch.replay_path) {
        /* With --replay it shows which GC would have stopped a record. */
        fprintf(stderr, "gcscope live: --stop-on-pause-ms belongs to record (or --replay)\n");
        return 1;
    }
    return live_run(&o);
}
