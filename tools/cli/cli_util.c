/* tools/cli/cli_util.c - what the subcommands share: the option parser and
 * usage printer (one table per command), opening a trace, error lines,
 * formats. */
#include "cli_util.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- options ---- */

const char cli_exit_codes_line[] = "exit codes: 0 ok, 1 usage error, 2 bad input or failure";

/* Every command has it; printed last in the usage. */
static const cli_option help_option = {-1, "help", 'h', NULL, "print this help and exit"};

/* Width of the option column of the usage ("  -o, --output FILE"). */
enum { USAGE_OPTION_WIDTH = 31 };

static void print_option(FILE *f, const cli_option *o)
{
    char col[128];
    int n = snprintf(col, sizeof col, "  %c%c%s--%s%s%s", o->letter ? '-' : ' ',
                     o->letter ? o->letter : ' ', o->letter ? ", " : "  ", o->name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
    if (n < USAGE_OPTION_WIDTH)
        fprintf(f, "%-*s%s\n", USAGE_OPTION_WIDTH, col, o->help);
    else /* too long for the column: the help goes on the next line */
        fprintf(f, "%s\n%-*s%s\n", col, USAGE_OPTION_WIDTH, "", o->help);
}

void cli_print_usage(FILE *f, const cli_command *cmd)
{
    fprintf(f, "usage: gcscope %s [options]%s%s\n  %s\n\noptions:\n", cmd->name,
            cmd->operands ? " " : "", cmd->operands ? cmd->operands : "", cmd->summary);
    const cli_option *tables[] = {cmd->options, cmd->filter_options, cmd->more_options};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const cli_option *o = tables[t]; o && o->id; o++)
            print_option(f, o);
    print_option(f, &help_option);
    fprintf(f, "\n%s%s\n", cmd->notes ? cmd->notes : "", cli_exit_codes_line);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    fflush(stdout);
    fprintf(stderr, "gcscope %s: ", cmd->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    cli_print_usage(stderr, cmd);
    return CLI_USAGE;
}

void cli_args_init(cli_args *a, const cli_command *cmd, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->argc = argc;
    a->argv = argv;
    a->next = 1; /* argv[0] is the command's name */
    assert(cmd->max_operands <= CLI_MAX_OPERANDS);
}

/* The option named by a word: "--name" (name_len chars of name) or "-l". */
static const cli_option *find_option(const cli_command *cmd, const char *name, size_t name_len,
                                     char letter)
{
    if (letter ? letter == help_option.letter
               : (name_len == strlen(help_option.name) && !strncmp(name, help_option.name, name_len)))
        return &help_option;
    const cli_option *tables[] = {cmd->options, cmd->filter_options, cmd->more_options};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const cli_option *o = tables[t]; o && o->id; o++)
            if (letter ? o->letter == letter
                       : (strlen(o->name) == name_len && !strncmp(o->name, name, name_len)))
                return o;
    return NULL;
}

static int stop(cli_args *a, int exit_code)
{
    a->exit_code = exit_code;
    return CLI_ARG_STOP;
}

int cli_args_next(cli_args *a)
{
    a->value = NULL;
    if (a->next >= a->argc) {
        if (a->n_operands < a->cmd->min_operands)
            return stop(a, cli_usage_error(a->cmd, "%s missing", a->cmd->operands));
        return CLI_ARG_END;
    }
    const char *word = a->argv[a->next++];
    if (a->operands_only || word[0] != '-' || word[1] == 0) {
        if (a->n_operands >= a->cmd->max_operands)
            return stop(a, cli_usage_error(a->cmd, "unexpected operand '%s'", word));
        a->operand[a->n_operands++] = word;
        return cli_args_next(a);
    }
    if (!strcmp(word, "--")) {
        a->operands_only = true;
        return cli_args_next(a);
    }
    const cli_option *o;
    const char *attached = NULL; /* "--name=VALUE" or "-lVALUE" */
    if (word[1] == '-') {
        const char *name = word + 2;
        const char *eq = strchr(name, '=');
        o = find_option(a->cmd, name, eq ? (size_t)(eq - name) : strlen(name), 0);
        if (eq)
            attached = eq + 1;
    } else {
        o = find_option(a->cmd, NULL, 0, word[1]);
        if (word[2])
            attached = word + 2;
    }
    if (!o)
        return stop(a, cli_usage_error(a->cmd, "unknown option %s", word));
    if (!o->arg) {
        if (attached)
            return stop(a, cli_usage_error(a->cmd, "%s takes no value", word));
        if (o == &help_option) {
            cli_print_usage(stdout, a->cmd);
            return stop(a, CLI_OK);
        }
        return o->id;
    }
    if (attached) {
        a->value = attached;
    } else if (a->next < a->argc) {
        a->value = a->argv[a->next++];
    } else {
        return stop(a, cli_usage_error(a->cmd, "%s needs a value (%s)", word, o->arg));
    }
    return o->id;
}

bool cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!*s)
        return false;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool cli_parse_ms(const char *s, double *out)
{
    /* Digits, at most one '.', digits: no sign, exponent, hex or space
     * (strtod would take them all). */
    size_t digits = 0, dots = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '.')
            dots++;
        else if (*p >= '0' && *p <= '9')
            digits++;
        else
            return false;
    }
    if (digits == 0 || dots > 1 || digits > 15)
        return false;
    *out = strtod(s, NULL);
    return true;
}

/* ---- GC filters ---- */

const cli_option cli_gc_filter_options[] = {
    {CLI_FILTER_OPT_GEN, "gen", 0, "0|1|2", "only GCs of this generation (repeat for several)"},
    {CLI_FILTER_OPT_KIND, "kind", 0, "blocking|background|foreground", "only GCs of this kind (repeatable)"},
    {CLI_FILTER_OPT_INDUCED, "induced", 0, NULL, "only induced GCs (GC.Collect and the like)"},
    {CLI_FILTER_OPT_MIN_PAUSE, "min-pause-ms", 0, "X", "only complete GCs pausing at least X ms"},
    {CLI_FILTER_OPT_FROM, "from-ms", 0, "T", "only GCs whose pause starts at or after T ms"},
    {CLI_FILTER_OPT_TO, "to-ms", 0, "T", "only GCs whose pause starts before T ms"},
    {CLI_FILTER_OPT_LIMIT, "limit", 0, "N", "at most N GC rows per runtime"},
    {0},
};

bool cli_is_gc_filter_option(int id)
{
    return id >= CLI_FILTER_OPT_FIRST && id < CLI_FILTER_OPT_END;
}

bool cli_parse_count(const char *s, size_t *out)
{
    uint64_t n;
    if (!cli_parse_uint(s, 1, 1000000000, &n))
        return false;
    *out = (size_t)n;
    return true;
}

int cli_gc_filter_apply(const cli_command *cmd, int id, const char *v, gcs_gc_filter *f)
{
    uint64_t gen;
    switch (id) {
    case CLI_FILTER_OPT_GEN:
        if (!cli_parse_uint(v, 0, 2, &gen))
            return cli_usage_error(cmd, "--gen takes 0, 1 or 2");
        f->gen_mask |= 1u << gen;
        break;
    case CLI_FILTER_OPT_KIND:
        if (strcmp(v, "blocking") == 0)
            f->kind_mask |= 1u << GCS_GC_NONCONCURRENT;
        else if (strcmp(v, "background") == 0)
            f->kind_mask |= 1u << GCS_GC_BACKGROUND;
        else if (strcmp(v, "foreground") == 0)
            f->kind_mask |= 1u << GCS_GC_FOREGROUND;
        else
            return cli_usage_error(cmd, "--kind takes blocking, background or foreground");
        break;
    case CLI_FILTER_OPT_INDUCED:
        f->induced = true;
        break;
    case CLI_FILTER_OPT_MIN_PAUSE:
        if (!cli_parse_ms(v, &f->min_pause_ms))
            return cli_usage_error(cmd, "--min-pause-ms takes a number of ms");
        f->has_min_pause = true;
        break;
    case CLI_FILTER_OPT_FROM:
        if (!cli_parse_ms(v, &f->from_ms))
            return cli_usage_error(cmd, "--from-ms takes a number of ms");
        f->has_from = true;
        break;
    case CLI_FILTER_OPT_TO:
        if (!cli_parse_ms(v, &f->to_ms))
            return cli_usage_error(cmd, "--to-ms takes a number of ms");
        f->has_to = true;
        break;
    case CLI_FILTER_OPT_LIMIT:
        if (!cli_parse_count(v, &f->limit))
            return cli_usage_error(cmd, "--limit takes a count of at least 1");
        break;
    default:
        assert(!"not a filter option");
    }
    return CLI_OK;
}

int cli_gc_filter_check(const cli_command *cmd, const gcs_gc_filter *f)
{
    if (f->has_from && f->has_to && !(f->from_ms < f->to_ms))
        return cli_usage_error(cmd, "--from-ms must be below --to-ms");
    return CLI_OK;
}

bool cli_reject_directory(const char *who, const char *path)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(cli_messages(), "%s: %s: is a directory, not a trace\n", who, path);
        return true;
    }
    return false;
}

/* ---- traces ---- */

/* The calling thread's stream for messages about a trace (NULL: stderr). */
static _Thread_local FILE *message_stream;

FILE *cli_messages(void)
{
    return message_stream ? message_stream : stderr;
}

void cli_set_messages(FILE *f)
{
    message_stream = f;
}

bool cli_open_trace(cli_trace *t, const char *path)
{
    return cli_open_trace_with(t, path, NULL);
}

bool cli_open_trace_with(cli_trace *t, const char *path, const gcs_reader_options *opts)
{
    gcs_error err;
    gcs_error_clear(&err);
    memset(t, 0, sizeof *t);
    t->path = path;
    /* A folder is read too: an LTTng trace (CTF) is one. */
    if (!strcmp(path, "-"))
        t->src = gcs_source_from_fd(STDIN_FILENO, false, &err);
    else
        t->src = gcs_source_open_file(path, &err);
    if (!t->src) {
        fprintf(cli_messages(), "gcscope: %s\n", err.reason);
        return false;
    }
    t->reader = gcs_reader_new(t->src, opts, &err);
    if (!t->reader) {
        fprintf(cli_messages(), "gcscope: %s: %s\n", path, err.reason);
        gcs_source_free(t->src);
        t->src = NULL;
        return false;
    }
    return true;
}

void cli_close_trace(cli_trace *t)
{
    gcs_reader_free(t->reader);
    gcs_source_free(t->src);
    t->reader = NULL;
    t->src = NULL;
}

void cli_report_error(const char *path, const gcs_error *err)
{
    switch (err->status) {
    case GCS_ERR_NOT_TRACE:
    case GCS_ERR_UNSUPPORTED:
    case GCS_ERR_IO:
    case GCS_ERR_NOMEM:
    case GCS_ERR_ARG:
        fprintf(cli_messages(), "gcscope: %s: %s\n", path, err->reason);
        break;
    default: {
        /* Reasons often start with the status name ("truncated: input
         * ends ..."): say it once. */
        const char *name = gcs_status_name(err->status);
        const char *reason = err->reason;
        size_t len = strlen(name);
        if (!strncmp(reason, name, len) && reason[len] == ':' && reason[len + 1] == ' ')
            reason += len + 2;
        fprintf(cli_messages(), "gcscope: %s: %s at byte offset %llu: %s\n", path, name,
                (unsigned long long)err->offset, reason);
        break;
    }
    }
}

bool cli_parse_format(const char *s, bool allow_csv, cli_format *out)
{
    if (!strcmp(s, "text") || !strcmp(s, "table"))
        *out = CLI_FMT_TEXT;
    else if (!strcmp(s, "json"))
        *out = CLI_FMT_JSON;
    else if (allow_csv && !strcmp(s, "csv"))
        *out = CLI_FMT_CSV;
    else
        return false;
    return true;
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

bool cli_process_selected(cli_process_filter *pf, const gcs_event *ev)
{
    gcs_process_table_feed(pf->processes, ev);
    if (!pf->spec)
        return true;
    if (!pf->have_last || pf->last_pid != ev->pid || gcs_process_table_wants(ev->type)) {
        pf->have_last = true;
        pf->last_pid = ev->pid;
        pf->last_selected = gcs_process_matches(pf->processes, ev->pid, pf->spec);
    }
    pf->selected_events += pf->last_selected;
    return pf->last_selected;
}

int cli_window_option(const cli_command *cmd, bool is_to, const char *value, cli_window *w)
{
    if (!cli_parse_ms(value, is_to ? &w->to_ms : &w->from_ms))
        return cli_usage_error(cmd, "%s takes a number of ms", is_to ? "--to-ms" : "--from-ms");
    if (is_to)
        w->has_to = true;
    else
        w->has_from = true;
    return CLI_OK;
}

int cli_window_check(const cli_command *cmd, const cli_window *w)
{
    if (w->has_from && w->has_to && !(w->from_ms < w->to_ms))
        return cli_usage_error(cmd, "--from-ms must be below --to-ms");
    return CLI_OK;
}
