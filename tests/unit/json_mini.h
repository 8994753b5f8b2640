/*
 * json_mini.h - a small JSON reader for tests (oracle files, our own
 * reports). Whole document in memory, tree of nodes, no streaming. Not for
 * hostile input beyond what tests feed it (depth and sizes are still
 * bounded by the input length).
 */
#ifndef GCS_TESTS_JSON_MINI_H
#define GCS_TESTS_JSON_MINI_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum jm_type { JM_NULL, JM_BOOL, JM_NUM, JM_STR, JM_ARR, JM_OBJ } jm_type;

typedef struct jm_node {
    jm_type type;
    double num;
    bool b;
    char *str;              /* JM_STR value */
    struct jm_node **items; /* JM_ARR elements / JM_OBJ values */
    char **keys;            /* JM_OBJ keys */
    size_t count, cap;      /* cap: room in items (and keys) */
} jm_node;

typedef struct jm_parser {
    const char *p, *end;
    bool failed;
} jm_parser;

static void jm_ws(jm_parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static jm_node *jm_value(jm_parser *ps, int depth);

static char *jm_string(jm_parser *ps)
{
    if (ps->p >= ps->end || *ps->p != '"') {
        ps->failed = true;
        return NULL;
    }
    ps->p++;
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if (c == '\\' && ps->p < ps->end) {
            char e = *ps->p++;
            if (e == 'n')
                c = '\n';
            else if (e == 't')
                c = '\t';
            else if (e == 'u') {
                /* tests only need ASCII escapes */
                unsigned v = 0;
                for (int k = 0; k < 4 && ps->p < ps->end; k++) {
                    char h = *ps->p++;
                    v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                }
                c = v < 128 ? (char)v : '?';
            } else
                c = e;
        }
        if (n + 2 > cap) {
            cap *= 2;
            s = realloc(s, cap);
        }
        s[n++] = c;
    }
    if (ps->p >= ps->end) {
        ps->failed = true;
        s[n] = 0;
        return s;
    }
    ps->p++;
    s[n] = 0;
    return s;
}

static jm_node *jm_new(jm_type t)
{
    jm_node *n = calloc(1, sizeof *n);
    n->type = t;
    return n;
}

static void jm_push(jm_node *n, char *key, jm_node *v)
{
    /* Doubling: an array of 179,454 GCs grown one element a time took
     * hours under ASan (every realloc a copy). */
    if (n->count == n->cap) {
        n->cap = n->cap ? 2 * n->cap : 8;
        n->items = realloc(n->items, n->cap * sizeof *n->items);
        if (n->type == JM_OBJ)
            n->keys = realloc(n->keys, n->cap * sizeof *n->keys);
    }
    n->items[n->count] = v;
    if (n->type == JM_OBJ)
        n->keys[n->count] = key;
    n->count++;
}

static jm_node *jm_value(jm_parser *ps, int depth)
{
    jm_ws(ps);
    if (ps->p >= ps->end || depth > 64) {
        ps->failed = true;
        return jm_new(JM_NULL);
    }
    char c = *ps->p;
    if (c == '{' || c == '[') {
        jm_node *n = jm_new(c == '{' ? JM_OBJ : JM_ARR);
        char close = c == '{' ? '}' : ']';
        ps->p++;
        jm_ws(ps);
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return n;
        }
        while (!ps->failed) {
            char *key = NULL;
            if (n->type == JM_OBJ) {
                jm_ws(ps);
                key = jm_string(ps);
                jm_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') {
                    ps->failed = true;
                    free(key);
                    break;
                }
                ps->p++;
            }
            jm_push(n, key, jm_value(ps, depth + 1));
            jm_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == close) {
                ps->p++;
                break;
            }
            ps->failed = true;
        }
        return n;
    }
    if (c == '"') {
        jm_node *n = jm_new(JM_STR);
        n->str = jm_string(ps);
        return n;
    }
    if (!strncmp(ps->p, "null", 4)) {
        ps->p += 4;
        return jm_new(JM_NULL);
    }
    if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        jm_node *n = jm_new(JM_BOOL);
        n->b = *ps->p == 't';
        ps->p += n->b ? 4 : 5;
        return n;
    }
    jm_node *n = jm_new(JM_NUM);
    char *endp;
    n->num = strtod(ps->p, &endp);
    if (endp == ps->p)
        ps->failed = true;
    ps->p = endp;
    return n;
}

/* Parses text[0..len); NULL when it is not JSON. */
static jm_node *jm_parse(const char *text, size_t len)
{
    jm_parser ps = {text, text + len, false};
    jm_node *root = jm_value(&ps, 0);
    jm_ws(&ps);
    if (ps.failed || ps.p != ps.end) {
        /* leak the partial tree: tests stop there anyway */
        return NULL;
    }
    return root;
}

static void jm_free(jm_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->count; i++) {
        jm_free(n->items[i]);
        if (n->keys)
            free(n->keys[i]);
    }
    free(n->items);
    free(n->keys);
    free(n->str);
    free(n);
}

static const jm_node *jm_get(const jm_node *obj, const char *key)
{
    if (!obj || obj->type != JM_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (obj->keys[i] && !strcmp(obj->keys[i], key))
            return obj->items[i];
    return NULL;
}

static const jm_node *jm_at(const jm_node *arr, size_t i)
{
    if (!arr || arr->type != JM_ARR || i >= arr->count)
        return NULL;
    return arr->items[i];
}

/* A number; NaN for null, "NaN", "Infinity" strings or absent values. */
static double jm_num(const jm_node *n)
{
    if (!n)
        return NAN;
    if (n->type == JM_NUM)
        return n->num;
    if (n->type == JM_BOOL)
        return n->b;
    return NAN;
}

static const char *jm_str(const jm_node *n) { return n && n->type == JM_STR ? n->str : NULL; }

#endif
