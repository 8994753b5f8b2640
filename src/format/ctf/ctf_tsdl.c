/*
 * format/ctf/ctf_tsdl.c - a recursive-descent parser for the TSDL subset
 * LTTng writes (see ctf_tsdl.h), over hostile text.
 *
 * Grammar handled (CTF 1.8 sections 4-7, as lttng-ust 2.x and
 * lttng-modules 2.x emit it):
 *
 *   top      := (block | typealias | typedef | named-type) ';' ...
 *   block    := ("trace"|"clock"|"stream"|"event"|"env"|"callsite") '{' entry* '}'
 *   entry    := path '=' value ';' | path ':=' type ';'
 *   typealias:= "typealias" type ':=' identifier+
 *   typedef  := "typedef" type declarator
 *   type     := "integer" '{' attr* '}' | "floating_point" '{' attr* '}'
 *             | "string" ['{' attr* '}'] | alias-name
 *             | "struct" [name] ['{' member* '}'] ["align" '(' n ')']
 *             | "enum" [name] [':' type] ['{' label (',' label)* '}']
 *             | "variant" [name] ['<' path '>'] ['{' member* '}']
 *   member   := type declarator (',' declarator)* ';' | typealias ';' | typedef ';'
 *   declarator := identifier ('[' (number | path) ']')*
 *
 * Sequence lengths and variant tags are paths resolved when parsed: the
 * field they name gets a register the decoder writes its value to.
 * Failures are GCS_ERR_UNSUPPORTED (the reader then hands the trace to
 * babeltrace2, which knows all of TSDL) or GCS_ERR_LIMIT/NOMEM.
 */
#include "format/ctf/ctf_tsdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Member names compared while resolving sequence lengths and variant
 * tags, in all: each path is a scan of the structs in scope, so 20000
 * sequences naming a struct's first field took 4 s for 270 KB of text
 * (quadratic). LTTng's name the field just before them. */
#define CTF_TSDL_MAX_PATH_COMPARES ((uint64_t)1 << 24)
/* Names declared with typealias/typedef/struct/enum/variant. */
#define CTF_TSDL_MAX_NAMES 65536u
/* Identifiers of one multi-word alias name ("unsigned long int"). */
#define CTF_TSDL_MAX_WORDS 8u
/* Memory of the parsed metadata. */
#define CTF_TSDL_MAX_ARENA ((size_t)256 << 20)
/* The longest identifier, string or path kept. */
#define CTF_TSDL_MAX_TOKEN 4096u

typedef enum { TOK_END, TOK_ID, TOK_NUM, TOK_STR, TOK_PUNCT } tok_kind;

typedef struct tok {
    tok_kind kind;
    size_t at, len; /* the token's bytes in the text */
    char punct;     /* TOK_PUNCT: the char, or ':'+'=' as 'A', "..." as 'E' */
} tok;

typedef struct named {
    const char *name; /* "struct foo", "enum foo", "variant foo" or an alias */
    size_t len;
    const ctf_type *type;
} named;

/* A struct or variant whose members are being parsed. */
typedef struct frame {
    ctf_member *members;
    uint32_t n;
    size_t cap;
} frame;

typedef struct parser {
    const char *s;
    size_t n, pos;
    tok t; /* the current token */
    ctf_meta *m;
    const char *file;
    gcs_error *err;
    named *names; /* open addressing: cap_names slots (a power of two), NULL name: free */
    size_t n_names, cap_names;
    frame frames[CTF_TSDL_MAX_NESTING + 1];
    unsigned depth;
    unsigned type_depth; /* parse_type calls in progress (enum : enum : ...) */
    size_t cap_events;   /* of m->events */
    /* Members compared while resolving paths, left (see member_named). */
    uint64_t path_compares_left;
    /* The block being parsed, for absolute paths ("stream.event.header.id")
     * and for relative ones that reach outside the current root. */
    const ctf_type *stream_roots[3]; /* packet.context, event.header, event.context */
    const ctf_type *event_context;
    const char *root; /* the root being parsed ("event.fields"), or NULL */
    unsigned root_depth;
} parser;

static gcs_status unsupported(parser *p, size_t at, const char *what)
{
    return GCS_FAIL(p->err, GCS_ERR_UNSUPPORTED, at, "metadata %s: %s at text byte %zu", p->file,
                    what, at);
}

static gcs_status nomem(parser *p)
{
    return GCS_FAIL(p->err, GCS_ERR_NOMEM, p->pos, "metadata %s: out of memory (or over %zu MB)",
                    p->file, CTF_TSDL_MAX_ARENA >> 20);
}

/* ---- tokens ---- */

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static gcs_status next(parser *p)
{
    const char *s = p->s;
    size_t n = p->n, i = p->pos;
    for (;;) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
                         s[i] == '\f' || s[i] == '\v'))
            i++;
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < n && !(s[j] == '*' && s[j + 1] == '/'))
                j++;
            if (j + 1 >= n)
                return unsupported(p, i, "unterminated comment");
            i = j + 2;
            continue;
        }
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    p->t.at = i;
    p->t.punct = 0;
    if (i >= n) {
        p->t.kind = TOK_END;
        p->t.len = 0;
        p->pos = i;
        return GCS_OK;
    }
    size_t j = i;
    char c = s[i];
    if (is_alpha(c)) {
        while (j < n && (is_alpha(s[j]) || is_digit(s[j])))
            j++;
        p->t.kind = TOK_ID;
    } else if (is_digit(c)) {
        while (j < n && (is_alpha(s[j]) || is_digit(s[j])))
            j++;
        p->t.kind = TOK_NUM;
    } else if (c == '"') {
        j++;
        while (j < n && s[j] != '"') {
            if (s[j] == '\\')
                j++;
            j++;
        }
        if (j >= n)
            return unsupported(p, i, "unterminated string");
        j++;
        p->t.kind = TOK_STR;
    } else {
        p->t.kind = TOK_PUNCT;
        p->t.punct = c;
        j++;
        if (c == ':' && j < n && s[j] == '=') {
            p->t.punct = 'A';
            j++;
        } else if (c == '.' && j + 1 < n && s[j] == '.' && s[j + 1] == '.') {
            p->t.punct = 'E';
            j += 2;
        } else if (!strchr("{}[]()<>;,=:.-+*", c)) {
            return unsupported(p, i, "unexpected character");
        }
    }
    if (j - i > CTF_TSDL_MAX_TOKEN)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, i, "metadata %s: a token longer than %u bytes",
                        p->file, CTF_TSDL_MAX_TOKEN);
    p->t.len = j - i;
    p->pos = j;
    return GCS_OK;
}

static bool is_punct(const parser *p, char c) { return p->t.kind == TOK_PUNCT && p->t.punct == c; }

static bool is_word(const parser *p, const char *w)
{
    size_t l = strlen(w);
    return p->t.kind == TOK_ID && p->t.len == l && memcmp(p->s + p->t.at, w, l) == 0;
}

static gcs_status expect(parser *p, char c, const char *what)
{
    if (!is_punct(p, c))
        return unsupported(p, p->t.at, what);
    return next(p);
}

/* The current token's text in the arena (a string's without its quotes
 * and with \" and \\ unescaped; a field name without one leading '_'). */
static const char *tok_text(parser *p, bool strip_underscore)
{
    const char *s = p->s + p->t.at;
    size_t len = p->t.len;
    if (p->t.kind == TOK_STR) {
        char *d = gcs_arena_alloc(&p->m->arena, len);
        if (!d)
            return NULL;
        size_t k = 0;
        for (size_t i = 1; i + 1 < len; i++) {
            if (s[i] == '\\' && i + 2 < len)
                i++;
            d[k++] = s[i];
        }
        d[k] = 0;
        return d;
    }
    if (strip_underscore && len > 1 && s[0] == '_') {
        s++;
        len--;
    }
    return gcs_arena_strndup(&p->m->arena, s, len);
}

/* An unsigned number token (decimal, 0x hex, 0 octal, U/L suffixes). */
static bool tok_number(const parser *p, uint64_t *v)
{
    const char *s = p->s + p->t.at;
    size_t len = p->t.len, i = 0;
    unsigned base = 10;
    while (len > 1 && (s[len - 1] == 'u' || s[len - 1] == 'U' || s[len - 1] == 'l' ||
                       s[len - 1] == 'L'))
        len--;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len > 1 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    uint64_t r = 0;
    for (; i < len; i++) {
        char c = s[i];
        unsigned d = is_digit(c) ? (unsigned)(c - '0')
                     : (c >= 'a' && c <= 'f') ? (unsigned)(c - 'a' + 10)
                     : (c >= 'A' && c <= 'F') ? (unsigned)(c - 'A' + 10)
                                              : 99;
        if (d >= base || r > (UINT64_MAX - d) / base)
            return false;
        r = r * base + d;
    }
    *v = r;
    return true;
}

/* A value after '=': a number (maybe negative), a string or an
 * identifier path (num and neg for numbers); at/len span the value. */
typedef struct value {
    bool is_num, neg;
    uint64_t num;
    size_t at, len; /* the whole value's text */
    const char *str; /* a string's contents (arena), or NULL */
} value;

static gcs_status parse_value(parser *p, value *v)
{
    memset(v, 0, sizeof *v);
    v->at = p->t.at;
    gcs_status st;
    if (is_punct(p, '-') || is_punct(p, '+')) {
        v->neg = is_punct(p, '-');
        if ((st = next(p)) != GCS_OK)
            return st;
        if (p->t.kind != TOK_NUM)
            return unsupported(p, p->t.at, "a sign without a number");
    }
    if (p->t.kind == TOK_NUM) {
        if (!tok_number(p, &v->num))
            return unsupported(p, p->t.at, "a number out of range");
        v->is_num = true;
        v->len = p->t.at + p->t.len - v->at;
        return next(p);
    }
    if (p->t.kind == TOK_STR) {
        if (!(v->str = tok_text(p, false)))
            return nomem(p);
        v->len = p->t.len;
        return next(p);
    }
    if (p->t.kind != TOK_ID)
        return unsupported(p, p->t.at, "a value expected");
    size_t end = p->t.at + p->t.len;
    if ((st = next(p)) != GCS_OK)
        return st;
    while (is_punct(p, '.')) {
        if ((st = next(p)) != GCS_OK)
            return st;
        if (p->t.kind != TOK_ID)
            return unsupported(p, p->t.at, "a path ends with '.'");
        end = p->t.at + p->t.len;
        if ((st = next(p)) != GCS_OK)
            return st;
    }
    v->len = end - v->at;
    return GCS_OK;
}

static bool value_is(const parser *p, const value *v, const char *w)
{
    return !v->is_num && !v->str && v->len == strlen(w) && memcmp(p->s + v->at, w, v->len) == 0;
}

/* ---- names ---- */

/* Names are kept in a hash table: a scan of every name per lookup was
 * quadratic in the text (a 240 KB text of 6000 names and 12000 fields
 * took 3 s under ASan, a 64 MiB one would take hours). */
static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211u;
    return h;
}

/* The slot of name[0..len) in table: its entry, or the free slot it takes. */
static named *name_slot(named *table, size_t cap, const char *name, size_t len)
{
    size_t i = (size_t)name_hash(name, len) & (cap - 1);
    while (table[i].name && !(table[i].len == len && memcmp(table[i].name, name, len) == 0))
        i = (i + 1) & (cap - 1);
    return &table[i];
}

static const ctf_type *lookup(const parser *p, const char *name, size_t len)
{
    if (!p->cap_names)
        return NULL;
    const named *e = name_slot(p->names, p->cap_names, name, len);
    return e->name ? e->type : NULL;
}

/* Declares name as t (a name declared again names its latest type). */
static gcs_status declare(parser *p, const char *name, const ctf_type *t)
{
    size_t len = strlen(name);
    named *e = p->cap_names ? name_slot(p->names, p->cap_names, name, len) : NULL;
    if (e && e->name) {
        e->type = t;
        return GCS_OK;
    }
    if (p->n_names == CTF_TSDL_MAX_NAMES)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: over %u type names", p->file,
                        CTF_TSDL_MAX_NAMES);
    if (2 * (p->n_names + 1) > p->cap_names) { /* at most half full */
        size_t cap = p->cap_names ? 2 * p->cap_names : 64;
        named *table = calloc(cap, sizeof *table);
        if (!table)
            return nomem(p);
        for (size_t i = 0; i < p->cap_names; i++)
            if (p->names[i].name)
                *name_slot(table, cap, p->names[i].name, p->names[i].len) = p->names[i];
        free(p->names);
        p->names = table;
        p->cap_names = cap;
    }
    e = name_slot(p->names, p->cap_names, name, len);
    e->name = name;
    e->len = len;
    e->type = t;
    p->n_names++;
    return GCS_OK;
}

/* "struct foo" etc. for the named-type namespace. */
static const char *kind_name(parser *p, const char *kw, size_t at, size_t len)
{
    size_t kl = strlen(kw);
    char *d = gcs_arena_alloc(&p->m->arena, kl + 1 + len + 1);
    if (!d)
        return NULL;
    memcpy(d, kw, kl);
    d[kl] = ' ';
    memcpy(d + kl + 1, p->s + at, len);
    d[kl + 1 + len] = 0;
    return d;
}

/* After the keyword `kw` (the current token): its optional name, as
 * "kw name" (NULL when there is none); the parser is left after them. */
static gcs_status parse_kind_name(parser *p, const char *kw, const char **name)
{
    *name = NULL;
    gcs_status st = next(p);
    if (st != GCS_OK || p->t.kind != TOK_ID)
        return st;
    if (!(*name = kind_name(p, kw, p->t.at, p->t.len)))
        return nomem(p);
    return next(p);
}

/* The type declared as `name` ("struct foo") of kind `kind`, for a
 * reference without a body ("struct foo x;"): GCS_ERR_UNSUPPORTED when
 * there is none (what says which keyword). */
static gcs_status named_type(parser *p, const char *name, ctf_kind kind, const char *what,
                             const ctf_type **out)
{
    const ctf_type *t = name ? lookup(p, name, strlen(name)) : NULL;
    if (!t || t->kind != kind)
        return unsupported(p, p->t.at, what);
    *out = t;
    return GCS_OK;
}

static ctf_type *new_type(parser *p, ctf_kind kind)
{
    ctf_type *t = gcs_arena_alloc(&p->m->arena, sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->align = 8;
    t->depth = 1;
    t->clock = -1;
    t->tag_reg = -1;
    t->length_reg = -1;
    return t;
}

/* ---- paths (sequence lengths, variant tags) ---- */

/* The member named name[0..len) among members[0..n), or NULL. Paths
 * name fields as written, so lose the leading '_' the names lost. */
static ctf_member *member_named(parser *p, ctf_member *members, uint32_t n, const char *name,
                                size_t len)
{
    if (len > 1 && name[0] == '_') {
        name++;
        len--;
    }
    for (uint32_t i = n; i-- > 0;) {
        if (p->path_compares_left == 0)
            return NULL; /* path_register says why */
        p->path_compares_left--;
        if (strlen(members[i].name) == len && memcmp(members[i].name, name, len) == 0)
            return &members[i];
    }
    return NULL;
}

/* Follows the rest of a dotted path (from `rest`, `end`) into struct
 * members, starting at member m. */
static ctf_member *descend(parser *p, ctf_member *m, const char *rest, const char *end)
{
    while (m && rest < end) {
        if (*rest != '.' || m->type->kind != CTF_STRUCT)
            return NULL;
        rest++;
        const char *dot = memchr(rest, '.', (size_t)(end - rest));
        const char *stop = dot ? dot : end;
        m = member_named(p, (ctf_member *)m->type->members, m->type->n_members, rest,
                         (size_t)(stop - rest));
        rest = stop;
    }
    return m;
}

static ctf_member *in_root(parser *p, const ctf_type *root, const char *path, const char *end)
{
    if (!root || root->kind != CTF_STRUCT || path >= end)
        return NULL;
    const char *dot = memchr(path, '.', (size_t)(end - path));
    const char *stop = dot ? dot : end;
    ctf_member *m = member_named(p, (ctf_member *)root->members, root->n_members, path,
                                 (size_t)(stop - path));
    return descend(p, m, stop, end);
}

static const char *after_prefix(const char *path, const char *end, const char *prefix)
{
    size_t l = strlen(prefix);
    if ((size_t)(end - path) > l && memcmp(path, prefix, l) == 0 && path[l] == '.')
        return path + l + 1;
    return NULL;
}

/* The member a path names, from the frames being parsed (innermost
 * first), then the roots of the block. Absolute paths name their root. */
static ctf_member *resolve(parser *p, const char *path, size_t len)
{
    const char *end = path + len;
    static const char *const absolute[] = {"trace.packet.header", "stream.packet.context",
                                           "stream.event.header", "stream.event.context",
                                           "event.context", "event.fields"};
    for (size_t a = 0; a < sizeof absolute / sizeof *absolute; a++) {
        const char *rest = after_prefix(path, end, absolute[a]);
        if (!rest)
            continue;
        if (p->root && strcmp(p->root, absolute[a]) == 0) {
            /* The root being parsed: its members so far, while they are
             * being parsed (a root that is no struct, a variant whose tag
             * names the root itself, has none yet). */
            if (p->depth <= p->root_depth)
                return NULL;
            frame *f = &p->frames[p->root_depth];
            const char *dot = memchr(rest, '.', (size_t)(end - rest));
            const char *stop = dot ? dot : end;
            return descend(p, member_named(p, f->members, f->n, rest, (size_t)(stop - rest)), stop,
                           end);
        }
        const ctf_type *root = a == 0   ? p->m->packet_header
                               : a <= 3 ? p->stream_roots[a - 1]
                               : a == 4 ? p->event_context
                                        : NULL;
        return in_root(p, root, rest, end);
    }
    const char *dot = memchr(path, '.', len);
    const char *stop = dot ? dot : end;
    for (unsigned d = p->depth; d-- > 0;) {
        ctf_member *m = member_named(p, p->frames[d].members, p->frames[d].n, path,
                                     (size_t)(stop - path));
        if (m)
            return descend(p, m, stop, end);
    }
    const ctf_type *roots[] = {p->event_context, p->stream_roots[2], p->stream_roots[1],
                               p->stream_roots[0], p->m->packet_header};
    for (size_t r = 0; r < sizeof roots / sizeof *roots; r++) {
        ctf_member *m = in_root(p, roots[r], path, end);
        if (m)
            return m;
    }
    return NULL;
}

/* The register of the integer field a path names (assigned now if new). */
static gcs_status path_register(parser *p, size_t at, size_t len, const ctf_type **type,
                                int32_t *reg)
{
    ctf_member *m = resolve(p, p->s + at, len);
    if (p->path_compares_left == 0)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, at,
                        "metadata %s: over %llu field names compared resolving lengths and tags",
                        p->file, (unsigned long long)CTF_TSDL_MAX_PATH_COMPARES);
    if (!m || m->type->kind != CTF_INT)
        return unsupported(p, at, "a length or tag that names no earlier integer field");
    if (m->reg < 0) {
        if (p->m->n_regs == CTF_TSDL_MAX_REGS)
            return GCS_FAIL(p->err, GCS_ERR_LIMIT, at, "metadata %s: over %u referenced fields",
                            p->file, CTF_TSDL_MAX_REGS);
        m->reg = (int32_t)p->m->n_regs++;
    }
    *type = m->type;
    *reg = m->reg;
    return GCS_OK;
}

/* ---- types ---- */

static gcs_status parse_type(parser *p, const ctf_type **out);
static gcs_status parse_members(parser *p, ctf_member **members, uint32_t *n);

static bool power_of_two(uint64_t v) { return v && !(v & (v - 1)); }

/* integer { ... } and floating_point { ... } attributes. */
static gcs_status parse_number_type(parser *p, ctf_kind kind, const ctf_type **out)
{
    ctf_type *t = new_type(p, kind);
    if (!t)
        return nomem(p);
    gcs_status st = next(p);
    if (st != GCS_OK || (st = expect(p, '{', "'{' after integer")) != GCS_OK)
        return st;
    uint64_t exp_dig = 0, mant_dig = 0;
    bool has_align = false;
    while (!is_punct(p, '}')) {
        if (p->t.kind != TOK_ID)
            return unsupported(p, p->t.at, "an attribute name expected");
        size_t key_at = p->t.at, key_len = p->t.len;
        if ((st = next(p)) != GCS_OK || (st = expect(p, '=', "'=' after an attribute")) != GCS_OK)
            return st;
        value v;
        if ((st = parse_value(p, &v)) != GCS_OK || (st = expect(p, ';', "';' after an attribute")) != GCS_OK)
            return st;
        const char *key = p->s + key_at;
#define KEY(w) (key_len == strlen(w) && memcmp(key, w, key_len) == 0)
        if (KEY("size") || KEY("exp_dig") || KEY("mant_dig") || KEY("align")) {
            if (!v.is_num || v.neg)
                return unsupported(p, v.at, "a size or alignment that is no number");
            if (KEY("size"))
                t->size = v.num > 64 ? 65 : (uint32_t)v.num;
            else if (KEY("exp_dig"))
                exp_dig = v.num;
            else if (KEY("mant_dig"))
                mant_dig = v.num;
            else {
                if (!power_of_two(v.num) || v.num > 32768)
                    return unsupported(p, v.at, "an alignment that is no power of two");
                t->align = (uint32_t)v.num;
                has_align = true;
            }
        } else if (KEY("signed")) {
            t->is_signed = v.is_num ? v.num != 0 : (value_is(p, &v, "true") || value_is(p, &v, "TRUE"));
        } else if (KEY("byte_order")) {
            if (value_is(p, &v, "native"))
                t->byte_order = CTF_BO_NATIVE;
            else if (value_is(p, &v, "le") || value_is(p, &v, "little_endian"))
                t->byte_order = CTF_BO_LE;
            else if (value_is(p, &v, "be") || value_is(p, &v, "big_endian") ||
                     value_is(p, &v, "network"))
                t->byte_order = CTF_BO_BE;
            else
                return unsupported(p, v.at, "an unknown byte order");
        } else if (KEY("encoding")) {
            t->is_text = !value_is(p, &v, "none");
        } else if (KEY("map")) {
            /* clock.NAME.value */
            const char *s = p->s + v.at;
            size_t l = v.len;
            if (l < 13 || memcmp(s, "clock.", 6) != 0 || memcmp(s + l - 6, ".value", 6) != 0)
                return unsupported(p, v.at, "a map to something other than a clock");
            const char *cn = s + 6;
            size_t cl = l - 12;
            t->clock = -2; /* a clock not declared (yet) */
            for (uint32_t c = 0; c < p->m->n_clocks; c++)
                if (strlen(p->m->clocks[c].name) == cl && memcmp(p->m->clocks[c].name, cn, cl) == 0)
                    t->clock = (int32_t)c;
            if (t->clock < 0)
                return unsupported(p, v.at, "a map to an undeclared clock");
        } /* base and others: no effect on the bytes */
#undef KEY
    }
    if ((st = next(p)) != GCS_OK)
        return st;
    if (kind == CTF_FLOAT) {
        if (!((exp_dig == 8 && mant_dig == 24) || (exp_dig == 11 && mant_dig == 53)))
            return unsupported(p, p->t.at, "a float other than 32 or 64 bits");
        t->size = (uint32_t)(exp_dig + mant_dig);
    } else if (t->size == 0 || t->size > 64) {
        return unsupported(p, p->t.at, "an integer of 0 or more than 64 bits");
    }
    t->min_bits = t->size;
    if (!has_align)
        t->align = t->size % 8 == 0 ? 8 : 1;
    *out = t;
    return GCS_OK;
}

/* enum [name] [: type] [{ labels }] after "enum". */
static gcs_status parse_enum(parser *p, const ctf_type **out)
{
    const char *name;
    gcs_status st = parse_kind_name(p, "enum", &name);
    if (st != GCS_OK)
        return st;
    const ctf_type *base = NULL;
    if (is_punct(p, ':')) {
        if ((st = next(p)) != GCS_OK || (st = parse_type(p, &base)) != GCS_OK)
            return st;
        if (base->kind != CTF_INT)
            return unsupported(p, p->t.at, "an enum over something other than an integer");
    }
    if (!is_punct(p, '{')) /* a reference to a named enum */
        return named_type(p, name, CTF_INT, "an enum that is not declared", out);
    if (!base) {
        base = lookup(p, "int", 3);
        if (!base || base->kind != CTF_INT)
            return unsupported(p, p->t.at, "an enum without an integer type");
    }
    ctf_type *t = new_type(p, CTF_INT);
    if (!t)
        return nomem(p);
    *t = *base;
    t->ranges = NULL;
    ctf_range *ranges = NULL;
    size_t n = 0, cap = 0;
    uint64_t next_value = 0;
    if ((st = next(p)) != GCS_OK)
        goto fail;
    while (!is_punct(p, '}')) {
        if (p->t.kind != TOK_ID && p->t.kind != TOK_STR) {
            st = unsupported(p, p->t.at, "an enum label expected");
            goto fail;
        }
        if (n == CTF_TSDL_MAX_RANGES) {
            st = GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: an enum with over %u labels",
                          p->file, CTF_TSDL_MAX_RANGES);
            goto fail;
        }
        if (!gcs_array_reserve((void **)&ranges, &cap, n + 1, sizeof *ranges, 8)) {
            st = nomem(p);
            goto fail;
        }
        ctf_range *r = &ranges[n++];
        if (!(r->label = tok_text(p, false))) {
            st = nomem(p);
            goto fail;
        }
        r->lo = r->hi = next_value;
        if ((st = next(p)) != GCS_OK)
            goto fail;
        if (is_punct(p, '=')) {
            value v;
            if ((st = next(p)) != GCS_OK || (st = parse_value(p, &v)) != GCS_OK)
                goto fail;
            if (!v.is_num) {
                st = unsupported(p, v.at, "an enum value that is no number");
                goto fail;
            }
            r->lo = r->hi = v.neg ? (uint64_t)0 - v.num : v.num;
            if (is_punct(p, 'E')) {
                if ((st = next(p)) != GCS_OK || (st = parse_value(p, &v)) != GCS_OK)
                    goto fail;
                if (!v.is_num) {
                    st = unsupported(p, v.at, "an enum range end that is no number");
                    goto fail;
                }
                r->hi = v.neg ? (uint64_t)0 - v.num : v.num;
            }
        }
        next_value = r->hi + 1;
        if (is_punct(p, ','))
            st = next(p);
        else if (!is_punct(p, '}'))
            st = unsupported(p, p->t.at, "',' or '}' expected in an enum");
        if (st != GCS_OK)
            goto fail;
    }
    if ((st = next(p)) != GCS_OK)
        goto fail;
    ctf_range *kept = gcs_arena_alloc(&p->m->arena, (n ? n : 1) * sizeof *kept);
    if (!kept) {
        st = nomem(p);
        goto fail;
    }
    if (n)
        memcpy(kept, ranges, n * sizeof *kept);
    free(ranges);
    t->ranges = kept;
    t->n_ranges = (uint32_t)n;
    if (name && (st = declare(p, name, t)) != GCS_OK)
        return st;
    *out = t;
    return GCS_OK;
fail:
    free(ranges);
    return st;
}

static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

static uint64_t sat_add_u64(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

static uint64_t sat_mul_u64(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* Sets t->depth from its members; refuses types nested too deep (through
 * typealiases, nesting is not bounded by the parser's own depth). */
static gcs_status set_depth(parser *p, ctf_type *t, const ctf_member *members, uint32_t n)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++)
        d = max_u32(d, members[i].type->depth);
    t->depth = d + 1;
    if (t->depth > 2 * CTF_TSDL_MAX_NESTING)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: types nest deeper than %u",
                        p->file, 2 * CTF_TSDL_MAX_NESTING);
    return GCS_OK;
}

/* struct [name] [{ members }] [align(n)] after "struct". */
static gcs_status parse_struct(parser *p, const ctf_type **out)
{
    const char *name;
    gcs_status st = parse_kind_name(p, "struct", &name);
    if (st != GCS_OK)
        return st;
    if (!is_punct(p, '{'))
        return named_type(p, name, CTF_STRUCT, "a struct that is not declared", out);
    ctf_type *t = new_type(p, CTF_STRUCT);
    if (!t)
        return nomem(p);
    ctf_member *members;
    uint32_t n;
    if ((st = parse_members(p, &members, &n)) != GCS_OK)
        return st;
    t->members = members;
    t->n_members = n;
    if ((st = set_depth(p, t, members, n)) != GCS_OK)
        return st;
    t->align = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (members[i].type->kind != CTF_VARIANT)
            t->align = max_u32(t->align, members[i].type->align);
        t->min_bits = sat_add_u64(t->min_bits, members[i].type->min_bits);
    }
    if (is_word(p, "align")) {
        value v;
        if ((st = next(p)) != GCS_OK || (st = expect(p, '(', "'(' after align")) != GCS_OK ||
            (st = parse_value(p, &v)) != GCS_OK || (st = expect(p, ')', "')' after align")) != GCS_OK)
            return st;
        if (!v.is_num || !power_of_two(v.num) || v.num > 32768)
            return unsupported(p, v.at, "an alignment that is no power of two");
        t->align = max_u32(t->align, (uint32_t)v.num);
    }
    if (name && (st = declare(p, name, t)) != GCS_OK)
        return st;
    *out = t;
    return GCS_OK;
}

/* Binds variant t to the tag a path names: each label of the tag's enum
 * selects the option of the same name. */
static gcs_status bind_tag(parser *p, ctf_type *t, size_t at, size_t len)
{
    const ctf_type *tag;
    gcs_status st = path_register(p, at, len, &tag, &t->tag_reg);
    if (st != GCS_OK)
        return st;
    if (!tag->ranges)
        return unsupported(p, at, "a variant tag that is no enum");
    int32_t *opt = gcs_arena_alloc(&p->m->arena, (tag->n_ranges ? tag->n_ranges : 1) * sizeof *opt);
    if (!opt)
        return nomem(p);
    for (uint32_t r = 0; r < tag->n_ranges; r++) {
        const char *label = tag->ranges[r].label;
        if (label[0] == '_' && label[1])
            label++;
        opt[r] = -1;
        for (uint32_t o = 0; o < t->n_members; o++)
            if (strcmp(t->members[o].name, label) == 0)
                opt[r] = (int32_t)o;
    }
    t->tag = tag;
    t->option_of_range = opt;
    return GCS_OK;
}

/* variant [name] [<tag>] [{ options }] after "variant". */
static gcs_status parse_variant(parser *p, const ctf_type **out)
{
    const char *name;
    gcs_status st = parse_kind_name(p, "variant", &name);
    if (st != GCS_OK)
        return st;
    size_t tag_at = 0, tag_len = 0;
    if (is_punct(p, '<')) {
        if ((st = next(p)) != GCS_OK)
            return st;
        value v;
        tag_at = p->t.at;
        if ((st = parse_value(p, &v)) != GCS_OK)
            return st;
        if (v.is_num || v.str)
            return unsupported(p, tag_at, "a variant tag that is no path");
        tag_len = v.len;
        if ((st = expect(p, '>', "'>' after a variant tag")) != GCS_OK)
            return st;
    }
    ctf_type *t = new_type(p, CTF_VARIANT);
    if (!t)
        return nomem(p);
    if (is_punct(p, '{')) {
        ctf_member *members;
        uint32_t n;
        if ((st = parse_members(p, &members, &n)) != GCS_OK)
            return st;
        t->members = members;
        t->n_members = n;
        t->align = 1;
        if ((st = set_depth(p, t, members, n)) != GCS_OK)
            return st;
        for (uint32_t i = 0; i < n; i++)
            if (i == 0 || members[i].type->min_bits < t->min_bits)
                t->min_bits = members[i].type->min_bits;
        if (name && (st = declare(p, name, t)) != GCS_OK)
            return st;
    } else {
        const ctf_type *named_t;
        if ((st = named_type(p, name, CTF_VARIANT, "a variant that is not declared", &named_t)) !=
            GCS_OK)
            return st;
        *t = *named_t;
    }
    if (tag_len && (st = bind_tag(p, t, tag_at, tag_len)) != GCS_OK)
        return st;
    *out = t;
    return GCS_OK;
}

/* An alias name of one or more words: the longest prefix of the
 * identifiers ahead that names a type ("unsigned long" in "unsigned long
 * events_discarded"); the parser is left on the token after it. */
static gcs_status parse_alias_name(parser *p, const ctf_type **out)
{
    tok words[CTF_TSDL_MAX_WORDS];
    unsigned n = 0;
    size_t start_pos = p->pos;
    tok start = p->t, after = p->t;
    gcs_status st;
    while (p->t.kind == TOK_ID && n < CTF_TSDL_MAX_WORDS) {
        words[n++] = p->t;
        if ((st = next(p)) != GCS_OK)
            return st;
    }
    after = p->t;
    size_t after_pos = p->pos;
    for (unsigned k = n; k > 0; k--) {
        char buf[256];
        size_t bl = 0;
        bool fits = true;
        for (unsigned w = 0; w < k && fits; w++) {
            fits = bl + words[w].len + 1 < sizeof buf;
            if (!fits)
                break;
            if (w)
                buf[bl++] = ' ';
            memcpy(buf + bl, p->s + words[w].at, words[w].len);
            bl += words[w].len;
        }
        const ctf_type *t = fits ? lookup(p, buf, bl) : NULL;
        if (!t)
            continue;
        if (k < n) { /* back to the word after the name */
            p->t = words[k];
            p->pos = words[k].at + words[k].len;
        } else {
            p->t = after;
            p->pos = after_pos;
        }
        *out = t;
        return GCS_OK;
    }
    p->t = start;
    p->pos = start_pos;
    return unsupported(p, start.at, "an unknown type name");
}

static gcs_status parse_type_here(parser *p, const ctf_type **out);

/* A type. Types nest in structs and variants (p->depth) and in an enum's
 * base type, which takes no frame: "enum : enum : ..." recursed once per
 * 7 bytes of text, past the stack. */
static gcs_status parse_type(parser *p, const ctf_type **out)
{
    if (p->depth >= CTF_TSDL_MAX_NESTING || p->type_depth >= 2 * CTF_TSDL_MAX_NESTING)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: types nest deeper than %u",
                        p->file, CTF_TSDL_MAX_NESTING);
    p->type_depth++;
    gcs_status st = parse_type_here(p, out);
    p->type_depth--;
    return st;
}

static gcs_status parse_type_here(parser *p, const ctf_type **out)
{
    if (is_word(p, "integer"))
        return parse_number_type(p, CTF_INT, out);
    if (is_word(p, "floating_point"))
        return parse_number_type(p, CTF_FLOAT, out);
    if (is_word(p, "string")) {
        gcs_status st = next(p);
        if (st != GCS_OK)
            return st;
        if (is_punct(p, '{')) { /* string { encoding = ...; } */
            while (!is_punct(p, '}')) {
                if (p->t.kind == TOK_END)
                    return unsupported(p, p->t.at, "an unclosed string attribute list");
                if ((st = next(p)) != GCS_OK)
                    return st;
            }
            if ((st = next(p)) != GCS_OK)
                return st;
        }
        ctf_type *t = new_type(p, CTF_STRING);
        if (!t)
            return nomem(p);
        t->min_bits = 8; /* its NUL */
        *out = t;
        return GCS_OK;
    }
    if (is_word(p, "struct"))
        return parse_struct(p, out);
    if (is_word(p, "enum"))
        return parse_enum(p, out);
    if (is_word(p, "variant"))
        return parse_variant(p, out);
    if (p->t.kind == TOK_ID)
        return parse_alias_name(p, out);
    return unsupported(p, p->t.at, "a type expected");
}

/* A declarator's name and array/sequence suffixes over base. */
static gcs_status parse_declarator(parser *p, const ctf_type *base, const char **name,
                                   const ctf_type **out, bool strip)
{
    if (p->t.kind != TOK_ID)
        return unsupported(p, p->t.at, "a field name expected");
    if (!(*name = tok_text(p, strip)))
        return nomem(p);
    gcs_status st = next(p);
    if (st != GCS_OK)
        return st;
    /* x[a][b]: an array of a arrays of b; built from the last suffix in. */
    size_t at[CTF_TSDL_MAX_NESTING], len[CTF_TSDL_MAX_NESTING];
    bool is_len[CTF_TSDL_MAX_NESTING];
    uint64_t num[CTF_TSDL_MAX_NESTING];
    unsigned n = 0;
    while (is_punct(p, '[')) {
        if (n == CTF_TSDL_MAX_NESTING)
            return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: over %u dimensions",
                            p->file, CTF_TSDL_MAX_NESTING);
        value v;
        if ((st = next(p)) != GCS_OK)
            return st;
        at[n] = p->t.at;
        if ((st = parse_value(p, &v)) != GCS_OK || (st = expect(p, ']', "']' expected")) != GCS_OK)
            return st;
        if (v.str || v.neg)
            return unsupported(p, at[n], "an array length that is neither number nor path");
        is_len[n] = !v.is_num;
        num[n] = v.num;
        len[n] = v.len;
        n++;
    }
    const ctf_type *t = base;
    for (unsigned k = n; k-- > 0;) {
        /* Elements of no bits would make the reader loop as often as the
         * length says, however few bits the packet has (and nested, the
         * product of the lengths). LTTng writes none. */
        if (t->min_bits == 0)
            return unsupported(p, at[k], "an array or sequence of elements that may take no bits");
        ctf_type *a = new_type(p, is_len[k] ? CTF_SEQUENCE : CTF_ARRAY);
        if (!a)
            return nomem(p);
        a->elem = t;
        a->align = t->align;
        a->depth = t->depth + 1;
        if (a->depth > 2 * CTF_TSDL_MAX_NESTING)
            return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: types nest deeper than %u",
                            p->file, 2 * CTF_TSDL_MAX_NESTING);
        if (is_len[k]) {
            const ctf_type *lt;
            if ((st = path_register(p, at[k], len[k], &lt, &a->length_reg)) != GCS_OK)
                return st;
        } else {
            if (num[k] > CTF_TSDL_MAX_ARRAY)
                return GCS_FAIL(p->err, GCS_ERR_LIMIT, at[k],
                                "metadata %s: an array of over %u elements", p->file,
                                CTF_TSDL_MAX_ARRAY);
            a->length = num[k];
            a->min_bits = sat_mul_u64(num[k], t->min_bits);
        }
        t = a;
    }
    *out = t;
    return GCS_OK;
}

/* typealias type := name words ; (the ';' is left to the caller). */
static gcs_status parse_typealias(parser *p)
{
    const ctf_type *t;
    gcs_status st = next(p);
    if (st != GCS_OK || (st = parse_type(p, &t)) != GCS_OK)
        return st;
    if ((st = expect(p, 'A', "':=' in a typealias")) != GCS_OK)
        return st;
    char buf[256];
    size_t bl = 0;
    size_t at = p->t.at;
    while (p->t.kind == TOK_ID) {
        if (bl + p->t.len + 1 >= sizeof buf)
            return unsupported(p, at, "a type name too long");
        if (bl)
            buf[bl++] = ' ';
        memcpy(buf + bl, p->s + p->t.at, p->t.len);
        bl += p->t.len;
        if ((st = next(p)) != GCS_OK)
            return st;
    }
    if (!bl)
        return unsupported(p, at, "a typealias without a name");
    const char *name = gcs_arena_strndup(&p->m->arena, buf, bl);
    if (!name)
        return nomem(p);
    return declare(p, name, t);
}

/* typedef type declarator ; */
static gcs_status parse_typedef(parser *p)
{
    const ctf_type *base, *t;
    const char *name;
    gcs_status st = next(p);
    if (st != GCS_OK || (st = parse_type(p, &base)) != GCS_OK ||
        (st = parse_declarator(p, base, &name, &t, false)) != GCS_OK)
        return st;
    return declare(p, name, t);
}

/* '{' member* '}' into an arena array. */
static gcs_status parse_members(parser *p, ctf_member **members, uint32_t *n)
{
    if (p->depth >= CTF_TSDL_MAX_NESTING)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: types nest deeper than %u",
                        p->file, CTF_TSDL_MAX_NESTING);
    frame *f = &p->frames[p->depth++];
    memset(f, 0, sizeof *f);
    gcs_status st = next(p);
    while (st == GCS_OK && !is_punct(p, '}')) {
        if (is_word(p, "typealias")) {
            if ((st = parse_typealias(p)) == GCS_OK)
                st = expect(p, ';', "';' after a typealias");
            continue;
        }
        if (is_word(p, "typedef")) {
            if ((st = parse_typedef(p)) == GCS_OK)
                st = expect(p, ';', "';' after a typedef");
            continue;
        }
        const ctf_type *base;
        if ((st = parse_type(p, &base)) != GCS_OK)
            break;
        if (is_punct(p, ';')) { /* a named struct/enum/variant declared here */
            st = next(p);
            continue;
        }
        for (;;) {
            const char *name;
            const ctf_type *t;
            if ((st = parse_declarator(p, base, &name, &t, true)) != GCS_OK)
                break;
            if (f->n == CTF_TSDL_MAX_MEMBERS) {
                st = GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: over %u members",
                              p->file, CTF_TSDL_MAX_MEMBERS);
                break;
            }
            if (!gcs_array_reserve((void **)&f->members, &f->cap, f->n + 1, sizeof *f->members,
                                   8)) {
                st = nomem(p);
                break;
            }
            memset(&f->members[f->n], 0, sizeof f->members[f->n]);
            f->members[f->n].name = name;
            f->members[f->n].type = t;
            f->members[f->n].reg = -1;
            f->members[f->n].role_reg = -1;
            f->n++;
            if (!is_punct(p, ','))
                break;
            if ((st = next(p)) != GCS_OK)
                break;
        }
        if (st == GCS_OK)
            st = expect(p, ';', "';' after a field");
    }
    if (st == GCS_OK)
        st = next(p);
    p->depth--;
    if (st != GCS_OK) {
        free(f->members);
        return st;
    }
    ctf_member *kept = gcs_arena_alloc(&p->m->arena, (f->n ? f->n : 1) * sizeof *kept);
    if (!kept) {
        free(f->members);
        return nomem(p);
    }
    if (f->n)
        memcpy(kept, f->members, f->n * sizeof *kept);
    free(f->members);
    /* Registers were assigned in the frame's copy: they are in kept. */
    *members = kept;
    *n = f->n;
    memset(f, 0, sizeof *f); /* nothing of it is looked up after */
    return GCS_OK;
}

/* ---- roles ---- */

/* Member visits of one search for a role: through typealiases a type is
 * shared, so a header of depth d can hold 2^d paths (a 1.4 KB text made
 * 2^31); LTTng's headers take a dozen. */
#define CTF_TSDL_MAX_ROLE_VISITS 65536u

static bool give_role_in(const ctf_type *t, const char *name, ctf_role r, bool deep,
                         uint32_t *roles, unsigned depth, uint32_t *visits)
{
    if (!t || (t->kind != CTF_STRUCT && t->kind != CTF_VARIANT) || depth > CTF_TSDL_MAX_NESTING)
        return true;
    for (uint32_t i = 0; i < t->n_members; i++) {
        if (++*visits > CTF_TSDL_MAX_ROLE_VISITS)
            return false;
        ctf_member *mb = (ctf_member *)&t->members[i];
        if (strcmp(mb->name, name) == 0 && mb->type->kind == CTF_INT) {
            mb->role_reg = (int32_t)r;
            if (roles)
                *roles |= 1u << r;
        }
        if (deep && !give_role_in(mb->type, name, r, deep, roles, depth + 1, visits))
            return false;
    }
    return true;
}

/* Gives the members named `name` (top level, or at any depth) role r;
 * false when that takes over CTF_TSDL_MAX_ROLE_VISITS member visits. */
static bool give_role(ctf_meta *m, const ctf_type *t, const char *name, ctf_role r, bool deep,
                      uint32_t *roles, unsigned depth)
{
    (void)m;
    uint32_t visits = 0;
    return give_role_in(t, name, r, deep, roles, depth, &visits);
}

/* ---- blocks ---- */

/* Skips a balanced { ... } (env, callsite, unknown blocks). */
static gcs_status skip_block(parser *p)
{
    unsigned depth = 0;
    gcs_status st;
    do {
        if (p->t.kind == TOK_END)
            return unsupported(p, p->t.at, "an unclosed block");
        if (is_punct(p, '{'))
            depth++;
        else if (is_punct(p, '}'))
            depth--;
        if ((st = next(p)) != GCS_OK)
            return st;
    } while (depth > 0);
    return GCS_OK;
}

typedef struct entry {
    size_t key_at, key_len;
    bool is_type;
    value v;
    const ctf_type *type;
} entry;

static bool key_is(const parser *p, const entry *e, const char *k)
{
    return e->key_len == strlen(k) && memcmp(p->s + e->key_at, k, e->key_len) == 0;
}

/* One `path = value;` or `path := type;` of a block. */
static gcs_status parse_entry(parser *p, entry *e, const char *root_prefix)
{
    memset(e, 0, sizeof *e);
    if (p->t.kind != TOK_ID)
        return unsupported(p, p->t.at, "an entry name expected");
    e->key_at = p->t.at;
    size_t end = p->t.at + p->t.len;
    gcs_status st = next(p);
    while (st == GCS_OK && is_punct(p, '.')) {
        if ((st = next(p)) != GCS_OK)
            return st;
        if (p->t.kind != TOK_ID)
            return unsupported(p, p->t.at, "a path ends with '.'");
        end = p->t.at + p->t.len;
        st = next(p);
    }
    if (st != GCS_OK)
        return st;
    e->key_len = end - e->key_at;
    if (is_punct(p, 'A')) {
        e->is_type = true;
        char root[64];
        if (snprintf(root, sizeof root, "%s%.*s", root_prefix, (int)(e->key_len < 40 ? e->key_len : 40),
                     p->s + e->key_at) <= 0)
            root[0] = 0;
        const char *saved_root = p->root;
        /* Only the roots paths can name: their text must outlive this call. */
        static const char *const known[] = {"trace.packet.header", "stream.packet.context",
                                            "stream.event.header", "stream.event.context",
                                            "event.context", "event.fields"};
        p->root = NULL;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++)
            if (strcmp(root, known[k]) == 0)
                p->root = known[k];
        p->root_depth = p->depth;
        if ((st = next(p)) == GCS_OK)
            st = parse_type(p, &e->type);
        p->root = saved_root;
    } else if (is_punct(p, '=')) {
        if ((st = next(p)) == GCS_OK)
            st = parse_value(p, &e->v);
    } else {
        return unsupported(p, p->t.at, "'=' or ':=' expected");
    }
    if (st == GCS_OK)
        st = expect(p, ';', "';' after an entry");
    return st;
}

static gcs_status parse_uuid(parser *p, const value *v, uint8_t out[16])
{
    const char *s = v->str;
    if (!s)
        return unsupported(p, v->at, "a uuid that is no string");
    unsigned k = 0;
    for (size_t i = 0; s[i] && k < 32; i++) {
        char c = s[i];
        if (c == '-')
            continue;
        unsigned d = is_digit(c) ? (unsigned)(c - '0')
                     : (c >= 'a' && c <= 'f') ? (unsigned)(c - 'a' + 10)
                     : (c >= 'A' && c <= 'F') ? (unsigned)(c - 'A' + 10)
                                              : 99;
        if (d > 15)
            return unsupported(p, v->at, "a uuid with a character that is no hex digit");
        if (k % 2 == 0)
            out[k / 2] = (uint8_t)(d << 4);
        else
            out[k / 2] |= (uint8_t)d;
        k++;
    }
    if (k != 32)
        return unsupported(p, v->at, "a uuid of other than 32 hex digits");
    return GCS_OK;
}

static gcs_status parse_trace(parser *p)
{
    gcs_status st = next(p);
    if (st != GCS_OK || (st = expect(p, '{', "'{' after trace")) != GCS_OK)
        return st;
    while (!is_punct(p, '}')) {
        entry e;
        if ((st = parse_entry(p, &e, "trace.")) != GCS_OK)
            return st;
        if (key_is(p, &e, "major") || key_is(p, &e, "minor")) {
            if (!e.v.is_num || e.v.num != (key_is(p, &e, "major") ? 1u : 8u))
                return unsupported(p, e.v.at, "a CTF version other than 1.8");
        } else if (key_is(p, &e, "uuid")) {
            if ((st = parse_uuid(p, &e.v, p->m->uuid)) != GCS_OK)
                return st;
            p->m->has_uuid = true;
        } else if (key_is(p, &e, "byte_order")) {
            if (value_is(p, &e.v, "be") || value_is(p, &e.v, "big_endian") ||
                value_is(p, &e.v, "network"))
                p->m->big_endian = true;
            else if (value_is(p, &e.v, "le") || value_is(p, &e.v, "little_endian"))
                p->m->big_endian = false;
            else
                return unsupported(p, e.v.at, "an unknown trace byte order");
        } else if (key_is(p, &e, "packet.header")) {
            if (!e.is_type || e.type->kind != CTF_STRUCT)
                return unsupported(p, e.key_at, "a packet header that is no struct");
            p->m->packet_header = e.type;
            give_role(p->m, e.type, "magic", CTF_ROLE_MAGIC, false, &p->m->header_roles, 0);
            give_role(p->m, e.type, "stream_id", CTF_ROLE_STREAM_ID, false, &p->m->header_roles, 0);
            give_role(p->m, e.type, "stream_instance_id", CTF_ROLE_STREAM_INSTANCE_ID, false,
                      &p->m->header_roles, 0);
        }
    }
    return next(p);
}

static gcs_status parse_clock(parser *p)
{
    gcs_status st = next(p);
    if (st != GCS_OK || (st = expect(p, '{', "'{' after clock")) != GCS_OK)
        return st;
    if (p->m->n_clocks == CTF_TSDL_MAX_CLOCKS)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: over %u clocks", p->file,
                        CTF_TSDL_MAX_CLOCKS);
    ctf_clock c = {NULL, 1000000000u, 0, 0};
    while (!is_punct(p, '}')) {
        entry e;
        if ((st = parse_entry(p, &e, "clock.")) != GCS_OK)
            return st;
        if (key_is(p, &e, "name")) {
            if (e.v.str)
                c.name = e.v.str;
            else if (!e.v.is_num && !(c.name = gcs_arena_strndup(&p->m->arena, p->s + e.v.at, e.v.len)))
                return nomem(p);
        } else if (key_is(p, &e, "freq")) {
            if (!e.v.is_num || e.v.neg || e.v.num == 0)
                return unsupported(p, e.v.at, "a clock frequency that is no positive number");
            c.freq = e.v.num;
        } else if (key_is(p, &e, "offset_s")) {
            if (!e.v.is_num || e.v.num > INT64_MAX)
                return unsupported(p, e.v.at, "a clock offset_s out of range");
            c.offset_s = e.v.neg ? -(int64_t)e.v.num : (int64_t)e.v.num;
        } else if (key_is(p, &e, "offset")) {
            if (!e.v.is_num || e.v.neg)
                return unsupported(p, e.v.at, "a clock offset that is no number");
            c.offset = e.v.num;
        }
    }
    if (!c.name)
        return unsupported(p, p->t.at, "a clock without a name");
    p->m->clocks[p->m->n_clocks++] = c;
    return next(p);
}

static ctf_stream_class *add_stream(parser *p, uint64_t id, size_t at)
{
    for (uint32_t i = 0; i < p->m->n_streams; i++)
        if (p->m->streams[i].id == id)
            return NULL;
    if (p->m->n_streams == CTF_TSDL_MAX_STREAMS)
        return NULL;
    ctf_stream_class *v = realloc(p->m->streams, (p->m->n_streams + 1) * sizeof *v);
    if (!v)
        return NULL;
    p->m->streams = v;
    ctf_stream_class *s = &v[p->m->n_streams++];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->procname_member = -1;
    (void)at;
    return s;
}

static gcs_status parse_stream(parser *p)
{
    gcs_status st = next(p);
    if (st != GCS_OK || (st = expect(p, '{', "'{' after stream")) != GCS_OK)
        return st;
    uint64_t id = 0;
    memset(p->stream_roots, 0, sizeof p->stream_roots);
    p->event_context = NULL;
    size_t at = p->t.at;
    while (!is_punct(p, '}')) {
        entry e;
        if ((st = parse_entry(p, &e, "stream.")) != GCS_OK)
            return st;
        if (key_is(p, &e, "id")) {
            if (!e.v.is_num || e.v.neg)
                return unsupported(p, e.v.at, "a stream id that is no number");
            id = e.v.num;
        } else if (e.is_type ? e.type->kind != CTF_STRUCT
                             : key_is(p, &e, "packet.context") || key_is(p, &e, "event.header") ||
                                   key_is(p, &e, "event.context")) {
            return unsupported(p, e.key_at, "a stream scope that is no struct");
        } else if (key_is(p, &e, "packet.context")) {
            p->stream_roots[0] = e.type;
        } else if (key_is(p, &e, "event.header")) {
            p->stream_roots[1] = e.type;
        } else if (key_is(p, &e, "event.context")) {
            p->stream_roots[2] = e.type;
        }
    }
    ctf_stream_class *s = add_stream(p, id, at);
    if (!s)
        return unsupported(p, at, "a stream id declared twice (or too many streams)");
    s->packet_context = p->stream_roots[0];
    s->event_header = p->stream_roots[1];
    s->event_context = p->stream_roots[2];
    static const char *const ctx_roles[] = {"content_size", "packet_size", "events_discarded",
                                            "cpu_id", "timestamp_end"};
    static const ctf_role ctx_role_ids[] = {CTF_ROLE_CONTENT_SIZE, CTF_ROLE_PACKET_SIZE,
                                            CTF_ROLE_EVENTS_DISCARDED, CTF_ROLE_CPU_ID,
                                            CTF_ROLE_TIMESTAMP_END};
    if (s->packet_context)
        for (uint32_t i = 0; i < s->packet_context->n_members; i++)
            if (strcmp(s->packet_context->members[i].name, "timestamp_end") == 0)
                ((ctf_member *)&s->packet_context->members[i])->leaves_clock = true;
    for (size_t r = 0; r < sizeof ctx_roles / sizeof *ctx_roles; r++)
        give_role(p->m, s->packet_context, ctx_roles[r], ctx_role_ids[r], false, &s->context_roles, 0);
    uint32_t header_roles = 0;
    if (!give_role(p->m, s->event_header, "id", CTF_ROLE_EVENT_ID, true, &header_roles, 0))
        return unsupported(p, at, "an event header too large to search for its id");
    s->header_has_id = header_roles != 0;
    give_role(p->m, s->event_context, "vpid", CTF_ROLE_VPID, false, NULL, 0);
    give_role(p->m, s->event_context, "vtid", CTF_ROLE_VTID, false, NULL, 0);
    if (s->event_context)
        for (uint32_t i = 0; i < s->event_context->n_members; i++)
            if (strcmp(s->event_context->members[i].name, "procname") == 0)
                s->procname_member = (int32_t)i;
    return next(p);
}

static gcs_status parse_event(parser *p)
{
    gcs_status st = next(p);
    if (st != GCS_OK || (st = expect(p, '{', "'{' after event")) != GCS_OK)
        return st;
    if (p->m->n_events == CTF_TSDL_MAX_EVENTS)
        return GCS_FAIL(p->err, GCS_ERR_LIMIT, p->t.at, "metadata %s: over %u event classes",
                        p->file, CTF_TSDL_MAX_EVENTS);
    ctf_event_class ev;
    memset(&ev, 0, sizeof ev);
    ev.blob_member = -1;
    ev.name = "";
    bool has_stream_id = false;
    size_t at = p->t.at;
    p->event_context = NULL;
    /* The stream's roots are those of stream_id, which may come after the
     * fields; LTTng writes it first. Paths from fields into stream roots
     * use the last stream parsed otherwise. */
    while (!is_punct(p, '}')) {
        entry e;
        if ((st = parse_entry(p, &e, "event.")) != GCS_OK)
            return st;
        if (key_is(p, &e, "name")) {
            if (e.v.str)
                ev.name = e.v.str;
            else if (!e.v.is_num && !(ev.name = gcs_arena_strndup(&p->m->arena, p->s + e.v.at, e.v.len)))
                return nomem(p);
        } else if (key_is(p, &e, "id") || key_is(p, &e, "stream_id")) {
            if (!e.v.is_num || e.v.neg)
                return unsupported(p, e.v.at, "an event id that is no number");
            if (key_is(p, &e, "id"))
                ev.id = e.v.num;
            else {
                ev.stream_id = e.v.num;
                has_stream_id = true;
                const ctf_stream_class *s = ctf_meta_stream(p->m, e.v.num);
                if (s) {
                    p->stream_roots[0] = s->packet_context;
                    p->stream_roots[1] = s->event_header;
                    p->stream_roots[2] = s->event_context;
                }
            }
        } else if (e.is_type ? e.type->kind != CTF_STRUCT
                             : key_is(p, &e, "context") || key_is(p, &e, "fields")) {
            return unsupported(p, e.key_at, "an event scope that is no struct");
        } else if (key_is(p, &e, "context")) {
            ev.context = e.type;
            p->event_context = e.type;
        } else if (key_is(p, &e, "fields")) {
            ev.fields = e.type;
        }
    }
    if (!has_stream_id && p->m->n_streams > 1)
        return unsupported(p, at, "an event without stream_id in a trace of several streams");
    if (ev.id > CTF_TSDL_MAX_EVENT_ID)
        return unsupported(p, at, "an event id over the limit");
    if (ev.fields)
        for (uint32_t i = 0; i < ev.fields->n_members; i++)
            if (strcmp(ev.fields->members[i].name, "__data__") == 0)
                ev.blob_member = (int32_t)i;
    /* Grown geometrically: one realloc per event copied them all each time
     * (12000 events, 200 KB of text: 6.6 s under ASan). */
    if (!gcs_array_reserve((void **)&p->m->events, &p->cap_events, p->m->n_events + 1,
                           sizeof *p->m->events, 64))
        return nomem(p);
    ev.index = p->m->n_events;
    p->m->events[p->m->n_events++] = ev;
    return next(p);
}

/* Settles t->is_fixed / fixed_bits / is_raw once every register and the
 * trace's byte order are known. */
static void settle_fixed(ctf_type *t, bool big)
{
    if (t->settled)
        return;
    t->settled = true;
    t->is_fixed = false;
    t->is_raw = false;
    t->fixed_bits = 0;
    switch (t->kind) {
    case CTF_INT:
    case CTF_FLOAT:
        t->is_fixed = t->clock < 0 && t->size % 8 == 0 && t->align <= 8;
        t->fixed_bits = t->size;
        t->is_raw = t->is_fixed && (t->byte_order == CTF_BO_LE ||
                                    (t->byte_order == CTF_BO_NATIVE && !big));
        return;
    case CTF_STRUCT: {
        uint64_t bits = 0;
        bool raw = true;
        for (uint32_t i = 0; i < t->n_members; i++) {
            const ctf_member *m = &t->members[i];
            ctf_type *mt = (ctf_type *)m->type;
            settle_fixed(mt, big);
            /* Sizes past 2^61 bits are no packet's: not fixed (the walk
             * finds them truncated); a sum that wrapped read 2^64 + 32
             * bits as 32. */
            if (!mt->is_fixed || m->reg >= 0 || m->role_reg >= 0 ||
                mt->fixed_bits > UINT64_MAX / 8 - bits)
                return;
            bits += mt->fixed_bits;
            raw = raw && mt->is_raw;
        }
        t->is_fixed = t->align <= 8;
        t->fixed_bits = bits;
        t->is_raw = t->is_fixed && raw;
        return;
    }
    case CTF_ARRAY: {
        ctf_type *e = (ctf_type *)t->elem;
        settle_fixed(e, big);
        /* Text arrays are rebuilt as strings: their size is not theirs. */
        if (!e->is_fixed || e->is_text || e->fixed_bits == 0 ||
            t->length > UINT64_MAX / 8 / e->fixed_bits)
            return;
        t->is_fixed = true;
        t->fixed_bits = t->length * e->fixed_bits;
        t->is_raw = e->is_raw;
        return;
    }
    default:
        return;
    }
}

/* An integer member as named, of this size and alignment, unsigned,
 * little-endian in a trace of byte order `big`. */
static bool plain_int(const ctf_member *m, const char *name, uint32_t size, uint32_t align,
                      bool big)
{
    const ctf_type *t = m->type;
    return strcmp(m->name, name) == 0 && t->kind == CTF_INT && t->size == size &&
           t->align == align && !t->is_signed &&
           (t->byte_order == CTF_BO_LE || (t->byte_order == CTF_BO_NATIVE && !big));
}

/* Which of LTTng's event headers h is, field for field (else NONE). */
static ctf_lttng_header lttng_header_of(const ctf_type *h, bool big, int32_t *clock)
{
    if (!h || h->kind != CTF_STRUCT || h->n_members != 2 || h->align != 8)
        return CTF_LTTNG_HEADER_NONE;
    const ctf_member *id = &h->members[0], *v = &h->members[1];
    bool compact = plain_int(id, "id", 5, 1, big);
    if (!compact && !plain_int(id, "id", 16, 8, big))
        return CTF_LTTNG_HEADER_NONE;
    uint64_t ext = compact ? 31 : 65535;
    const ctf_type *e = id->type;
    if (!e->ranges || e->n_ranges != 2 || strcmp(e->ranges[0].label, "compact") != 0 ||
        e->ranges[0].lo != 0 || e->ranges[0].hi != ext - 1 ||
        strcmp(e->ranges[1].label, "extended") != 0 || e->ranges[1].lo != ext ||
        e->ranges[1].hi != ext)
        return CTF_LTTNG_HEADER_NONE;
    const ctf_type *vt = v->type;
    if (strcmp(v->name, "v") != 0 || vt->kind != CTF_VARIANT || vt->tag != e || id->reg < 0 ||
        vt->tag_reg != id->reg || vt->n_members != 2 || vt->option_of_range[0] != 0 ||
        vt->option_of_range[1] != 1)
        return CTF_LTTNG_HEADER_NONE;
    const ctf_type *c = vt->members[0].type, *x = vt->members[1].type;
    if (strcmp(vt->members[0].name, "compact") != 0 || c->kind != CTF_STRUCT ||
        c->n_members != 1 ||
        !plain_int(&c->members[0], "timestamp", compact ? 27 : 32, compact ? 1 : 8, big) ||
        c->members[0].type->clock < 0 || strcmp(vt->members[1].name, "extended") != 0 ||
        x->kind != CTF_STRUCT || x->n_members != 2 || !plain_int(&x->members[0], "id", 32, 8, big) ||
        !plain_int(&x->members[1], "timestamp", 64, 8, big) ||
        x->members[1].type->clock != c->members[0].type->clock)
        return CTF_LTTNG_HEADER_NONE;
    *clock = c->members[0].type->clock;
    return compact ? CTF_LTTNG_HEADER_COMPACT : CTF_LTTNG_HEADER_LARGE;
}

/* Whether stream s's event context is flat (see ctf_stream_class), and
 * where its vpid, vtid and procname lie. */
static void flatten_context(ctf_stream_class *s, bool big)
{
    const ctf_type *t = s->event_context;
    s->context_flat = false;
    s->vpid_at = s->vtid_at = s->procname_at = -1;
    /* Byte-aligned, whole bytes throughout: no member is ever padded. */
    if (!t || t->kind != CTF_STRUCT || t->align != 8)
        return;
    uint64_t at = 0;
    for (uint32_t i = 0; i < t->n_members; i++) {
        const ctf_member *m = &t->members[i];
        const ctf_type *mt = m->type;
        bool le = mt->byte_order == CTF_BO_LE || (mt->byte_order == CTF_BO_NATIVE && !big);
        if (m->reg >= 0)
            return; /* a length or tag another field reads */
        if (mt->kind == CTF_INT && le && mt->size % 8 == 0 && mt->align <= 8 && mt->clock < 0) {
            if (m->role_reg == CTF_ROLE_VPID || m->role_reg == CTF_ROLE_VTID) {
                bool pid = m->role_reg == CTF_ROLE_VPID;
                *(pid ? &s->vpid_at : &s->vtid_at) = (int32_t)at;
                *(pid ? &s->vpid_bytes : &s->vtid_bytes) = (uint8_t)(mt->size / 8);
                *(pid ? &s->vpid_signed : &s->vtid_signed) = mt->is_signed;
            } else if (m->role_reg >= 0) {
                return;
            }
            at += mt->size / 8;
        } else if (mt->kind == CTF_ARRAY && mt->elem->kind == CTF_INT && mt->elem->size == 8 &&
                   mt->elem->align <= 8 && mt->align <= 8 && m->role_reg < 0) {
            if ((int32_t)i == s->procname_member) {
                if (!mt->elem->is_text)
                    return;
                s->procname_at = (int32_t)at;
                s->procname_len = (uint32_t)mt->length;
            }
            at += mt->length;
        } else {
            return;
        }
        if (at > INT32_MAX)
            return;
    }
    s->context_bytes = (uint32_t)at;
    s->context_flat = true;
    s->context_lttng = s->vpid_at >= 0 && s->vpid_bytes == 4 && s->vtid_at >= 0 &&
                       s->vtid_bytes == 4 && s->procname_at >= 0;
    s->vpid_sign_mask = s->vpid_signed ? 0x80000000u : 0;
    s->vtid_sign_mask = s->vtid_signed ? 0x80000000u : 0;
}

/* After the text: each stream's events by id. */
static gcs_status index_events(parser *p)
{
    ctf_meta *m = p->m;
    for (uint32_t i = 0; i < m->n_events; i++) {
        if (m->events[i].fields)
            settle_fixed((ctf_type *)m->events[i].fields, m->big_endian);
        if (m->events[i].context)
            settle_fixed((ctf_type *)m->events[i].context, m->big_endian);
    }
    if (m->n_streams == 0) {
        ctf_stream_class *s = add_stream(p, 0, 0);
        if (!s)
            return nomem(p);
    }
    for (uint32_t si = 0; si < m->n_streams; si++) {
        ctf_stream_class *s = &m->streams[si];
        s->header_clock = -1;
        s->lttng_header = lttng_header_of(s->event_header, m->big_endian, &s->header_clock);
        flatten_context(s, m->big_endian);
        uint64_t max = 0;
        bool any = false;
        uint32_t classes = 0;
        for (uint32_t i = 0; i < m->n_events; i++)
            if (m->events[i].stream_id == s->id || m->n_streams == 1) {
                any = true;
                if (m->events[i].id > max)
                    max = m->events[i].id;
                s->sole = classes++ == 0 ? &m->events[i] : NULL;
            }
        if (!any)
            continue;
        const ctf_event_class **by = gcs_arena_alloc(&m->arena, (size_t)(max + 1) * sizeof *by);
        if (!by)
            return nomem(p);
        memset(by, 0, (size_t)(max + 1) * sizeof *by);
        for (uint32_t i = 0; i < m->n_events; i++)
            if (m->events[i].stream_id == s->id || m->n_streams == 1) {
                if (by[m->events[i].id])
                    return unsupported(p, 0, "two event classes with one id");
                by[m->events[i].id] = &m->events[i];
            }
        s->by_id = by;
        s->n_by_id = (uint32_t)(max + 1);
    }
    return GCS_OK;
}

gcs_status ctf_meta_parse(ctf_meta *meta, const char *text, size_t size, const char *name,
                          gcs_error *err)
{
    memset(meta, 0, sizeof *meta);
    gcs_arena_init(&meta->arena, CTF_TSDL_MAX_ARENA);
    meta->n_regs = CTF_ROLE_COUNT;
    parser p;
    memset(&p, 0, sizeof p);
    p.s = text;
    p.n = size;
    p.m = meta;
    p.file = name;
    p.err = err;
    p.path_compares_left = CTF_TSDL_MAX_PATH_COMPARES;
    gcs_status st = next(&p);
    while (st == GCS_OK && p.t.kind != TOK_END) {
        if (is_word(&p, "trace"))
            st = parse_trace(&p);
        else if (is_word(&p, "clock"))
            st = parse_clock(&p);
        else if (is_word(&p, "stream"))
            st = parse_stream(&p);
        else if (is_word(&p, "event"))
            st = parse_event(&p);
        else if (is_word(&p, "env") || is_word(&p, "callsite")) {
            if ((st = next(&p)) == GCS_OK)
                st = skip_block(&p);
        } else if (is_word(&p, "typealias"))
            st = parse_typealias(&p);
        else if (is_word(&p, "typedef"))
            st = parse_typedef(&p);
        else if (is_word(&p, "struct") || is_word(&p, "enum") || is_word(&p, "variant")) {
            const ctf_type *t;
            st = parse_type(&p, &t);
        } else
            st = unsupported(&p, p.t.at, "an unknown top-level declaration");
        if (st == GCS_OK)
            st = expect(&p, ';', "';' after a top-level declaration");
    }
    if (st == GCS_OK)
        st = index_events(&p);
    free(p.names);
    return st;
}

void ctf_meta_free(ctf_meta *meta)
{
    gcs_arena_reset(&meta->arena);
    free(meta->streams);
    free(meta->events);
    memset(meta, 0, sizeof *meta);
}

const ctf_stream_class *ctf_meta_stream(const ctf_meta *meta, uint64_t id)
{
    for (uint32_t i = 0; i < meta->n_streams; i++)
        if (meta->streams[i].id == id)
            return &meta->streams[i];
    return NULL;
}
