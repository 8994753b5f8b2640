/*
 * gcscope profile [-o FILE] [--types REGEX] [--format F] -- COMMAND ARGS...
 *
 * Runs a .NET program under gcscope's in-process profiler
 * (libgcscope_profiler.so: every allocation, every GC's moved and
 * surviving ranges; docs/format-profile.md) and, when it exits, prints the
 * objects report from that exact data. -o keeps the profile for
 * `gcscope objects FILE` later.
 */
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"

/* The profiler's CLSID (tools/profiler/profiler.c). */
#define PROFILER_CLSID "{8C2E5F0A-3B7D-4E61-9A24-6D1F0C5B9E73}"
#define PROFILER_FILE "libgcscope_profiler.so"

enum { OPT_OUT = 1, OPT_TYPES, OPT_FORMAT };

static const cli_option profile_options[] = {
    {OPT_OUT, "output", 'o', "FILE", "keep the profile in FILE (default: a temporary file)"},
    {OPT_TYPES, "types", 0, "REGEX", "record only the types whose name matches (POSIX ERE)"},
    {OPT_FORMAT, "format", 0, "table|json|csv", "report format (default table)"},
    {0},
};

static int run_profile(int argc, char **argv);

const cli_command cmd_profile = {
    .name = "profile",
    .operands = "-- COMMAND [ARGS...]",
    .min_operands = 0,
    .max_operands = 0,
    .summary = "run a .NET program with the exact object profiler, then report",
    .options = profile_options,
    .notes = "Sets CORECLR_ENABLE_PROFILING, CORECLR_PROFILER and CORECLR_PROFILER_PATH (the\n"
             "profiler " PROFILER_FILE " is looked for beside gcscope, in ../lib, or at\n"
             "$GCSCOPE_PROFILER), and GCSCOPE_PROFILE_OUT; every object of the recorded types is\n"
             "followed. The report is `gcscope objects` on the profile (docs/objects.md).\n"
             "The exit code is 2 when the program failed (its status on stderr).\n",
    .run = run_profile,
};

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The profiler library: $GCSCOPE_PROFILER, else beside the executable, in
 * its parent folder (build/asan/gcscope -> build/), or in ../lib (an
 * installed bin/gcscope). */
/* program (a path: a name found on PATH is not looked at) is a NativeAOT
 * executable, which cannot load a CLR profiler. */
static bool is_native_aot(const char *program)
{
    if (!strchr(program, '/') || !is_file(program))
        return false;
    gcs_error err;
    gcs_error_clear(&err);
    gcs_symbols *s = gcs_symbols_load(program, &err);
    bool aot = s && gcs_symbols_get_stats(s)->native_aot;
    gcs_symbols_free(s);
    return aot;
}

static bool find_profiler(char *out, size_t cap)
{
    const char *env = getenv("GCSCOPE_PROFILER");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return is_file(out);
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = 0;
    static const char *const places[] = {"%s/" PROFILER_FILE, "%s/../" PROFILER_FILE,
                                         "%s/../lib/" PROFILER_FILE};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        snprintf(out, cap, places[i], exe);
        if (is_file(out)) {
            char *real = realpath(out, NULL);
            if (real) {
                snprintf(out, cap, "%s", real);
                free(real);
            }
            return true;
        }
    }
    return false;
}

static int run_profile(int argc, char **argv)
{
    /* Options before "--", the program after it. */
    int dd = 1;
    while (dd < argc && strcmp(argv[dd], "--") != 0)
        dd++;
    const char *out = NULL, *types = NULL;
    cli_format fmt = CLI_FMT_TEXT;
    cli_args a;
    cli_args_init(&a, &cmd_profile, dd, argv);
    int id;
    while ((id = cli_args_next(&a)) > 0) {
        switch (id) {
        case OPT_OUT: out = a.value; break;
        case OPT_TYPES: types = a.value; break;
        case OPT_FORMAT:
            if (!cli_parse_format(a.value, true, &fmt))
                return cli_usage_error(&cmd_profile, "--format takes table, json or csv");
            break;
        }
    }
    if (id == CLI_ARG_STOP)
        return a.exit_code;
    if (dd + 1 >= argc)
        return cli_usage_error(&cmd_profile, "the program to run follows --");
    if (types) {
        regex_t re;
        if (regcomp(&re, types, REG_EXTENDED | REG_NOSUB) != 0)
            return cli_usage_error(&cmd_profile, "--types: '%s' is not a regular expression",
                                   types);
        regfree(&re);
    }
    char lib[4096];
    if (!find_profiler(lib, sizeof lib)) {
        fprintf(stderr, "gcscope profile: %s not found beside gcscope, in ../lib, or at "
                        "$GCSCOPE_PROFILER\n", PROFILER_FILE);
        return CLI_FAILED;
    }
    char tmp[] = "/tmp/gcscope-profile-XXXXXX";
    const char *path = out;
    if (!path) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            fprintf(stderr, "gcscope profile: no temporary file: %s\n", strerror(errno));
            return CLI_FAILED;
        }
        close(fd);
        path = tmp;
    } else if (cli_reject_directory("gcscope profile", path)) {
        return CLI_USAGE;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "gcscope profile: fork: %s\n", strerror(errno));
        if (!out)
            unlink(tmp);
        return CLI_FAILED;
    }
    if (pid == 0) {
        setenv("CORECLR_ENABLE_PROFILING", "1", 1);
        setenv("CORECLR_PROFILER", PROFILER_CLSID, 1);
        setenv("CORECLR_PROFILER_PATH", lib, 1);
        setenv("GCSCOPE_PROFILE_OUT", path, 1);
        if (types)
            setenv("GCSCOPE_PROFILE_TYPES", types, 1);
        else
            unsetenv("GCSCOPE_PROFILE_TYPES");
        execvp(argv[dd + 1], argv + dd + 1);
        fprintf(stderr, "gcscope profile: cannot run %s: %s\n", argv[dd + 1], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C is for the program: it ends, then the report is printed. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        if (!out)
            unlink(tmp);
        return CLI_FAILED;
    }
    struct stat st;
    int rc;
    if (stat(path, &st) != 0 || st.st_size == 0) {
        if (is_native_aot(argv[dd + 1]))
            fprintf(stderr, "gcscope profile: %s is a NativeAOT executable: its runtime has no "
                            "profiling API. Record its GC events instead (DOTNET_EnableEventPipe=1, "
                            "docs/symbols.md) and name its types with gcscope objects --symbols "
                            "%s.dbg\n", argv[dd + 1], argv[dd + 1]);
        else
            fprintf(stderr, "gcscope profile: %s: no profile written (is %s a .NET program? "
                            "the runtime says why on stderr)\n", path, argv[dd + 1]);
        rc = CLI_FAILED;
    } else {
        cli_objects_view v = {.format = fmt};
        rc = cli_objects_report(path, &v);
    }
    if (failed) {
        if (WIFEXITED(status))
            fprintf(stderr, "gcscope profile: %s exited with status %d\n", argv[dd + 1],
                    WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
            fprintf(stderr, "gcscope profile: %s was killed by signal %d\n", argv[dd + 1],
                    WTERMSIG(status));
        rc = CLI_FAILED;
    }
    if (!out)
        unlink(tmp);
    return rc;
}
