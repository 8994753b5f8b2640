/*
 * decode/schema_fit.c - compiled fit checks (see schema_fit.h).
 *
 * A program is a list of steps over one field list (the payload's, or a
 * struct element's); each step mirrors what gcs_payload_walk_fields does
 * for its fields and fails where the walker fails:
 *   SKIP n          fixed-size fields: n bytes must be left
 *   COUNT w         a fixed-size integer a later field counts by: read
 *                   (w bytes, unsigned, as the walker's value .u) into
 *                   the list's count slot
 *   UTF16Z, ANSIZ   a terminated string
 *   PAD a           padding to a multiple of a bytes from the list's start
 *   ELEMENTS        n elements (n from a count slot, a constant, or a
 *                   uint16/varuint prefix): n must not exceed the bytes
 *                   left (the walker's rule), then n times the element:
 *                   fixed size e (one compare for all), a string, or a
 *                   sub-program (a struct of variable size; one of fixed
 *                   runs and padding only is of fixed size)
 * Two shapes skip the interpreter: strings between fixed runs
 * (gcs_fit_string_shape) and one array counted by the field before it
 * (note_counted: the bulk GC events, ~5 per GC, were a fifth of the
 * instructions of `info` on a trace of many GCs).
 */
#include "decode/schema_fit.h"

#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "decode/schema_size.h"
#include "gcscope/decode.h"

enum fit_op_kind { OP_SKIP, OP_COUNT, OP_UTF16Z, OP_ANSIZ, OP_PAD, OP_ELEMENTS };
enum fit_elem_kind { ELEM_FIXED, ELEM_UTF16Z, ELEM_ANSIZ, ELEM_PROG };
enum fit_count_kind { COUNT_ONE, COUNT_CONST, COUNT_SLOT, COUNT_U16, COUNT_VARU };

/* Struct nesting the compiler takes (the walker refuses from
 * GCS_PAYLOAD_MAX_DEPTH on; real schemas nest 2 deep at most). */
#define FIT_MAX_DEPTH 4
/* Count slots of one field list. */
#define FIT_MAX_SLOTS 8

typedef struct fit_op {
    uint8_t kind;       /* fit_op_kind */
    uint8_t elem;       /* ELEMENTS: fit_elem_kind */
    uint8_t count_from; /* ELEMENTS: fit_count_kind */
    uint8_t slot;       /* COUNT: slot written; ELEMENTS with COUNT_SLOT: slot read */
    uint32_t arg;       /* SKIP bytes, COUNT width, PAD alignment, ELEMENTS fixed size */
    uint32_t n;         /* ELEMENTS with COUNT_CONST: the count */
    const struct gcs_fit_prog *child; /* ELEMENTS with ELEM_PROG */
} fit_op;

struct gcs_fit_prog {
    const fit_op *ops;
    uint32_t n_ops;
    /* Fixed fields, terminated strings, fixed fields (an event that
     * names a type or a method: AllocationTick, MethodLoadVerbose, ...):
     * see gcs_fit_string_shape. string_unit: 0 (not that shape), 2
     * (UTF-16), 1 (ANSI); strings: how many; before, after: the fixed
     * bytes around them. */
    uint32_t string_unit, strings, before, after;
    /* An array counted by the field before it (a bulk GC event:
     * PerHeapHistory, GlobalHeapHistory, FitBucketInfo; a name and its
     * data: DynamicTraceEvent): see note_counted. counted: 0 (not that
     * shape), 1 (fixed head), 2 (a UTF-16 string, then the fixed head);
     * head: the fixed bytes before the count, count_width its bytes,
     * elem_size each element's, tail the fixed bytes after them. */
    uint32_t counted, head, count_width, elem_size, tail;
};

/* The ops are [SKIP] string... [SKIP], the strings all UTF-16 or all
 * ANSI: note the shape (see gcs_fit_prog). */
static void note_strings(gcs_fit_prog *p)
{
    uint32_t i = 0, before = 0, after = 0;
    if (i < p->n_ops && p->ops[i].kind == OP_SKIP)
        before = p->ops[i++].arg;
    if (i == p->n_ops || (p->ops[i].kind != OP_UTF16Z && p->ops[i].kind != OP_ANSIZ))
        return;
    const uint8_t kind = p->ops[i].kind;
    uint32_t strings = 0;
    for (; i < p->n_ops && p->ops[i].kind == kind; i++)
        strings++;
    if (i < p->n_ops && p->ops[i].kind == OP_SKIP)
        after = p->ops[i++].arg;
    if (i != p->n_ops || strings > GCS_FIT_MAX_SHAPE_STRINGS)
        return;
    p->string_unit = kind == OP_UTF16Z ? 2 : 1;
    p->strings = strings;
    p->before = before;
    p->after = after;
}

/* The ops are [UTF16Z] [SKIP head] COUNT ELEMENTS [SKIP tail], the
 * elements fixed-size and counted by that COUNT: note the shape (see
 * gcs_fit_prog), checked without the interpreter (check_counted). */
static void note_counted(gcs_fit_prog *p)
{
    uint32_t i = 0, head = 0, tail = 0, counted = 1;
    if (i < p->n_ops && p->ops[i].kind == OP_UTF16Z) {
        counted = 2;
        i++;
    }
    if (i < p->n_ops && p->ops[i].kind == OP_SKIP)
        head = p->ops[i++].arg;
    if (p->n_ops - i < 2 || p->ops[i].kind != OP_COUNT)
        return;
    const fit_op *count = &p->ops[i], *elements = &p->ops[i + 1];
    i += 2;
    if (elements->kind != OP_ELEMENTS || elements->count_from != COUNT_SLOT ||
        elements->slot != count->slot || elements->elem != ELEM_FIXED || elements->arg == 0 ||
        count->arg > 8)
        return;
    if (i < p->n_ops && p->ops[i].kind == OP_SKIP)
        tail = p->ops[i++].arg;
    if (i != p->n_ops)
        return;
    p->counted = counted;
    p->head = head;
    p->count_width = count->arg;
    p->elem_size = elements->arg;
    p->tail = tail;
}

/* run's answer for a program of the counted shape: the count (little
 * endian, count_width bytes) after the string and head, then as many
 * elements as the bytes left hold at most (the walker's rule: no more
 * elements than bytes, and all of them present), then the tail. */
static bool check_counted(const gcs_fit_prog *p, const uint8_t *payload, uint32_t size)
{
    gcs_cursor c = gcs_cur_make(size ? payload : (const uint8_t *)"", size, 0);
    if (p->counted == 2 && !gcs_cur_skip_utf16z(&c))
        return false;
    const uint8_t *b;
    if (!gcs_cur_skip(&c, p->head) || !gcs_cur_bytes(&c, p->count_width, &b))
        return false;
    uint64_t n = 0;
    for (uint32_t j = p->count_width; j-- > 0;)
        n = n << 8 | b[j];
    const uint64_t left = gcs_cur_left(&c);
    return n <= left / p->elem_size && left - n * p->elem_size >= p->tail;
}

static bool is_count_type(gcs_type t)
{
    switch (t) {
    case GCS_T_BOOL8: case GCS_T_BOOL32: case GCS_T_U8: case GCS_T_I8: case GCS_T_U16:
    case GCS_T_I16: case GCS_T_U32: case GCS_T_I32: case GCS_T_U64: case GCS_T_I64:
    case GCS_T_POINTER:
        return true;
    default:
        return false;
    }
}

/* Size of one element of f (f's own repeat rule ignored), when fixed. */
static bool element_size(const gcs_field *f, uint32_t pointer_size, uint32_t *size)
{
    gcs_field one = *f;
    one.repeat = GCS_REPEAT_ONE;
    one.repeat_arg = 0;
    return gcs_schema_fixed_size(&one, 1, pointer_size, size);
}

/* How deep structs nest in fields (0: no struct), up to past the limit. */
static unsigned nesting(const gcs_field *fields, uint32_t count, unsigned depth)
{
    unsigned most = 0;
    for (uint32_t i = 0; i < count && depth <= FIT_MAX_DEPTH; i++) {
        if (fields[i].type != GCS_T_STRUCT)
            continue;
        unsigned d = 1 + (fields[i].children ? nesting(fields[i].children, fields[i].child_count,
                                                        depth + 1)
                                              : 0);
        most = d > most ? d : most;
    }
    return most;
}

typedef struct compiler {
    fit_op ops[GCS_PAYLOAD_MAX_COUNT_FIELDS * 2];
    uint32_t n;
} compiler;

static bool emit_op(compiler *k, fit_op op)
{
    if (k->n == sizeof k->ops / sizeof k->ops[0])
        return false;
    /* Fixed runs merge into one step. */
    if (op.kind == OP_SKIP && k->n > 0 && k->ops[k->n - 1].kind == OP_SKIP) {
        uint64_t sum = (uint64_t)k->ops[k->n - 1].arg + op.arg;
        if (sum > UINT32_MAX)
            return false;
        k->ops[k->n - 1].arg = (uint32_t)sum;
        return true;
    }
    k->ops[k->n++] = op;
    return true;
}

static const gcs_fit_prog *compile_list(const gcs_field *fields, uint32_t count,
                                        uint32_t pointer_size, gcs_arena *arena, unsigned depth);

/* A struct's program of fixed runs and padding only (FitBucketInfo's
 * element: 2 bytes, padding to 4, 12 bytes): its padding counts from the
 * element's start, so every element takes the same bytes; *size them. */
static bool fixed_struct_size(const gcs_fit_prog *p, uint32_t *size)
{
    uint64_t at = 0;
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const fit_op *op = &p->ops[i];
        if (op->kind == OP_SKIP)
            at += op->arg;
        else if (op->kind == OP_PAD)
            at += (op->arg - at % op->arg) % op->arg;
        else
            return false;
        if (at > UINT32_MAX)
            return false;
    }
    *size = (uint32_t)at;
    return true;
}

/* The element step of an array field (or of a single struct). */
static bool element_op(const gcs_field *f, uint32_t pointer_size, gcs_arena *arena,
                       unsigned depth, fit_op *op)
{
    uint32_t size;
    if (f->type == GCS_T_BINARY) {
        op->elem = ELEM_FIXED; /* raw bytes: the count is their length */
        op->arg = 1;
        return true;
    }
    if (f->type == GCS_T_UTF16Z || f->type == GCS_T_ANSIZ) {
        op->elem = f->type == GCS_T_UTF16Z ? ELEM_UTF16Z : ELEM_ANSIZ;
        return true;
    }
    if (element_size(f, pointer_size, &size)) {
        if (size == 0)
            return false; /* an empty element: left to the walker */
        op->elem = ELEM_FIXED;
        op->arg = size;
        return true;
    }
    if (f->type != GCS_T_STRUCT)
        return false;
    op->elem = ELEM_PROG;
    op->child = compile_list(f->children, f->child_count, pointer_size, arena, depth + 1);
    if (op->child && fixed_struct_size(op->child, &size) && size > 0) {
        op->elem = ELEM_FIXED; /* the same bytes for every element */
        op->arg = size;
        op->child = NULL;
    }
    return op->child != NULL || op->elem == ELEM_FIXED;
}

static const gcs_fit_prog *compile_list(const gcs_field *fields, uint32_t count,
                                        uint32_t pointer_size, gcs_arena *arena, unsigned depth)
{
    if (depth > FIT_MAX_DEPTH || (count > 0 && !fields) ||
        nesting(fields, count, 0) + depth > FIT_MAX_DEPTH)
        return NULL;
    /* Which fields a later field counts by: they get a slot each. */
    int slot_of[GCS_PAYLOAD_MAX_COUNT_FIELDS];
    memset(slot_of, -1, sizeof slot_of);
    unsigned slots = 0;
    for (uint32_t i = 0; i < count; i++) {
        const gcs_field *f = &fields[i];
        if (f->repeat != GCS_REPEAT_COUNT_FIELD || f->type == GCS_T_NONE)
            continue;
        uint32_t j = f->repeat_arg;
        /* What the walker refuses, or counts by a value it reads only
         * as part of something else: left to the walker. */
        if (j >= i || j >= GCS_PAYLOAD_MAX_COUNT_FIELDS || fields[j].repeat != GCS_REPEAT_ONE ||
            !is_count_type(fields[j].type))
            return NULL;
        if (slot_of[j] < 0) {
            if (slots == FIT_MAX_SLOTS)
                return NULL;
            slot_of[j] = (int)slots++;
        }
    }
    compiler *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++) {
        const gcs_field *f = &fields[i];
        fit_op op = {0};
        uint32_t size;
        if (f->type == GCS_T_NONE) {
            if (f->repeat != GCS_REPEAT_FIXED)
                continue; /* no bytes */
            op.kind = OP_PAD;
            op.arg = f->repeat_arg ? f->repeat_arg : pointer_size;
            ok = emit_op(k, op);
            continue;
        }
        if (f->repeat == GCS_REPEAT_ONE && f->type != GCS_T_BINARY) {
            if (i < GCS_PAYLOAD_MAX_COUNT_FIELDS && slot_of[i] >= 0) {
                ok = element_size(f, pointer_size, &size);
                op.kind = OP_COUNT;
                op.arg = size;
                op.slot = (uint8_t)slot_of[i];
            } else if (f->type == GCS_T_UTF16Z || f->type == GCS_T_ANSIZ) {
                op.kind = f->type == GCS_T_UTF16Z ? OP_UTF16Z : OP_ANSIZ;
            } else if (element_size(f, pointer_size, &size)) {
                op.kind = OP_SKIP;
                op.arg = size;
            } else if (f->type == GCS_T_DATETIME) {
                op.kind = OP_SKIP; /* read as 8 bytes, as the walker reads it */
                op.arg = 8;
            } else if (f->type == GCS_T_STRUCT) {
                op.kind = OP_ELEMENTS;
                op.count_from = COUNT_ONE;
                ok = element_op(f, pointer_size, arena, depth, &op);
            } else {
                ok = false; /* variable-length integers, UTF-8, ... */
            }
            ok = ok && emit_op(k, op);
            continue;
        }
        op.kind = OP_ELEMENTS;
        switch (f->repeat) {
        case GCS_REPEAT_ONE: op.count_from = COUNT_CONST; op.n = 1; break; /* 1 raw byte */
        case GCS_REPEAT_FIXED: op.count_from = COUNT_CONST; op.n = f->repeat_arg; break;
        case GCS_REPEAT_COUNT_FIELD:
            op.count_from = COUNT_SLOT;
            op.slot = (uint8_t)slot_of[f->repeat_arg];
            break;
        case GCS_REPEAT_U16_PREFIX: op.count_from = COUNT_U16; break;
        case GCS_REPEAT_VARUINT_PREFIX: op.count_from = COUNT_VARU; break;
        default: ok = false; break; /* located arrays */
        }
        ok = ok && element_op(f, pointer_size, arena, depth, &op) && emit_op(k, op);
    }
    gcs_fit_prog *prog = NULL;
    if (ok) {
        prog = gcs_arena_alloc(arena, sizeof *prog);
        fit_op *ops = k->n ? gcs_arena_alloc(arena, k->n * sizeof *ops) : NULL;
        if (prog && (ops || !k->n)) {
            if (k->n)
                memcpy(ops, k->ops, k->n * sizeof *ops);
            prog->ops = ops;
            prog->n_ops = k->n;
            prog->string_unit = prog->strings = prog->before = prog->after = 0;
            prog->counted = prog->head = prog->count_width = prog->elem_size = prog->tail = 0;
            note_strings(prog);
            note_counted(prog);
        } else {
            prog = NULL;
        }
    }
    free(k);
    return prog;
}

const gcs_fit_prog *gcs_fit_compile(const gcs_field *fields, uint32_t count,
                                    uint32_t pointer_size, gcs_arena *arena)
{
    if (pointer_size != 4 && pointer_size != 8)
        return NULL;
    return compile_list(fields, count, pointer_size, arena, 0);
}

static bool run(const gcs_fit_prog *p, gcs_cursor *c);

static bool skip_string(gcs_cursor *c, bool utf16)
{
    const uint8_t *s;
    size_t n;
    return utf16 ? gcs_cur_skip_utf16z(c) : gcs_cur_ansiz(c, &s, &n);
}

static bool run_elements(const fit_op *op, gcs_cursor *c, const uint64_t *slots)
{
    uint64_t n;
    switch (op->count_from) {
    case COUNT_ONE:
        return run(op->child, c); /* a single struct: no count rule */
    case COUNT_CONST: n = op->n; break;
    case COUNT_SLOT: n = slots[op->slot]; break;
    case COUNT_U16: {
        uint16_t v;
        if (!gcs_cur_u16(c, &v))
            return false;
        n = v;
        break;
    }
    default: {
        uint32_t v;
        if (!gcs_cur_varu32(c, &v))
            return false;
        n = v;
        break;
    }
    }
    size_t left = gcs_cur_left(c);
    if (n > left)
        return false;
    switch (op->elem) {
    case ELEM_FIXED:
        return n <= left / op->arg && gcs_cur_skip(c, (size_t)n * op->arg);
    case ELEM_PROG:
        for (uint64_t i = 0; i < n; i++)
            if (!run(op->child, c))
                return false;
        return true;
    default:
        for (uint64_t i = 0; i < n; i++)
            if (!skip_string(c, op->elem == ELEM_UTF16Z))
                return false;
        return true;
    }
}

/* One field list from the cursor; padding counts from where it starts. */
static bool run(const gcs_fit_prog *p, gcs_cursor *c)
{
    const uint64_t base = gcs_cur_offset(c);
    uint64_t slots[FIT_MAX_SLOTS];
    for (uint32_t i = 0; i < p->n_ops; i++) {
        const fit_op *op = &p->ops[i];
        switch (op->kind) {
        case OP_SKIP:
            if (!gcs_cur_skip(c, op->arg))
                return false;
            break;
        case OP_COUNT: {
            uint64_t v = 0;
            const uint8_t *b;
            if (!gcs_cur_bytes(c, op->arg, &b))
                return false;
            for (uint32_t j = op->arg; j-- > 0;)
                v = v << 8 | b[j];
            slots[op->slot] = v;
            break;
        }
        case OP_UTF16Z:
        case OP_ANSIZ:
            if (!skip_string(c, op->kind == OP_UTF16Z))
                return false;
            break;
        case OP_PAD: {
            uint64_t rel = gcs_cur_offset(c) - base;
            if (!gcs_cur_skip(c, (size_t)((op->arg - rel % op->arg) % op->arg)))
                return false;
            break;
        }
        default:
            if (!run_elements(op, c, slots))
                return false;
            break;
        }
    }
    return true;
}

gcs_fit_string_shape gcs_fit_string_shape_of(const gcs_fit_prog *prog)
{
    gcs_fit_string_shape shape = {prog->string_unit, prog->strings, prog->before, prog->after};
    return shape;
}

bool gcs_fit_flat(const gcs_fit_prog *prog, uint32_t max_strings, uint32_t *n_strings,
                  uint8_t *units, uint32_t *fixed)
{
    uint32_t n = 0;
    fixed[0] = 0;
    for (uint32_t i = 0; i < prog->n_ops; i++) {
        const fit_op *op = &prog->ops[i];
        if (op->kind == OP_SKIP) {
            fixed[n] += op->arg; /* runs are merged: at most one between strings */
        } else if ((op->kind == OP_UTF16Z || op->kind == OP_ANSIZ) && n < max_strings) {
            units[n++] = op->kind == OP_UTF16Z ? 2 : 1;
            fixed[n] = 0;
        } else {
            return false;
        }
    }
    *n_strings = n;
    return true;
}

bool gcs_fit_check(const gcs_fit_prog *prog, const uint8_t *payload, uint32_t size)
{
    if (prog->counted)
        return check_counted(prog, payload, size);
    gcs_fit_string_shape shape = gcs_fit_string_shape_of(prog);
    if (gcs_fit_string_surely_fits(&shape, payload, size))
        return true;
    if (shape.strings > 1)
        return false; /* the answer was exact */
    gcs_cursor c = gcs_cur_make(size ? payload : (const uint8_t *)"", size, 0);
    return run(prog, &c);
}
