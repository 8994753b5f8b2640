/*
 * gcscope record PID -o FILE.nettrace [--duration SECONDS]
 *                    [--stop-on-pause-ms N] [options]
 *
 * Saves the session's stream as a nettrace file while analyzing it; stops
 * on Ctrl-C/SIGTERM, after --duration, as soon as a GC pause exceeds
 * --stop-on-pause-ms, or when the process exits (the file is then cut to
 * its last whole block and closed with the end marker).
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "live_watch.h"

bool live_parse_pid(const char *s, uint32_t *pid);

static int usage_to(FILE *f, int rc)
{
    fprintf(f,
            "usage: gcscope record PID -o FILE.nettrace [options]\n"
            "  save the process's GC events as a nettrace file\n"
            "  -o FILE                the file to write\n"
            "  --stop-on-pause-ms N   stop and save as soon as a GC pause exceeds N ms\n"
            "  --rows                 also print each GC as it completes\n%s",
            live_common_usage);
    return rc;
}

static int usage(void) { return usage_to(stderr, 1); }

int cmd_record(int argc, char **argv)
{
    live_opts o;
    memset(&o, 0, sizeof o);
    o.cmd = "record";
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
        if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc)
                return usage();
            o.watch.out_path = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--rows")) {
            o.print_rows = true;
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "gcscope record: unknown option %s\n", argv[i]);
            return usage();
        }
        if (have_pid || !live_parse_pid(argv[i], &o.watch.pid)) {
            fprintf(stderr, "gcscope record: '%s' is not a process id\n", argv[i]);
            return 1;
        }
        have_pid = true;
    }
    if ((!have_pid && !o.watch.socket_path) || !o.watch.out_path)
        return usage();
    return live_run(&o);
}
