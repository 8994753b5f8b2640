/*
 * elf_symbols.c - NativeAOT type symbols from an ELF file's symbol table.
 *
 * Public API: include/gcscope/symbols.h; contract: docs/symbols.md.
 *
 * What is read (System V ABI, ELF-64 Object File Format 1.5; the 32-bit
 * layout as the gABI gives it). Little-endian only; offsets are file
 * offsets, "addr" a virtual address of the image:
 *
 *   ELF header      off 64-bit  32-bit
 *     e_ident        0  16      16     7f 'E' 'L' 'F', class (1: 32, 2: 64),
 *                                      data (1: little-endian), version 1
 *     e_shoff           40 u64  32 u32 section header table
 *     e_shentsize       58 u16  46 u16 >= 64 / >= 40
 *     e_shnum           60 u16  48 u16 0: the count is section 0's sh_size
 *   section header (64 / 40 bytes)
 *     sh_type        4 u32       4 u32   2 SYMTAB, 3 STRTAB, 7 NOTE,
 *                                        8 NOBITS (no bytes in the file),
 *                                        11 DYNSYM
 *     sh_offset     24 u64      16 u32
 *     sh_size       32 u64      20 u32
 *     sh_link       40 u32      24 u32   a symbol table's string table
 *     sh_entsize    56 u64      36 u32   >= 24 / >= 16 for symbol tables
 *   symbol (24 / 16 bytes)
 *     st_name        0 u32       0 u32   offset in the string table
 *     st_shndx       6 u16      14 u16   0: undefined
 *     st_value       8 u64       4 u32   the symbol's address
 *   note: namesz u32, descsz u32, type u32, name and desc each padded to 4;
 *     type 3 with name "GNU\0" is the build ID (desc: its bytes).
 *
 * Type symbols: `_ZTV` + decimal length + exactly that many bytes to the
 * end of the name (how the ILCompiler names a MethodTable; the name is
 * what follows); C++ vtables of nested names (`_ZTVN...E`) do not have
 * that form. And `__GCStaticEEType_<bits>`, the MethodTable of the blocks
 * holding a class's static reference fields (named whole). Everything
 * else is skipped. Names are copied, so the file's bytes are not kept.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/error.h"
#include "gcscope/symbols.h"

typedef struct type_symbol {
    uint64_t address;
    const char *name; /* in the arena */
} type_symbol;

struct gcs_symbols {
    type_symbol *types;
    size_t ntypes, cap;
    gcs_arena names;
    char build_id[2 * 64 + 1];
    gcs_symbols_stats stats;
};

enum { SHT_SYMTAB = 2, SHT_NOTE = 7, SHT_NOBITS = 8, SHT_DYNSYM = 11 };

typedef struct section {
    uint32_t type, link;
    uint64_t offset, size, entsize;
} section;

typedef struct elf_file {
    const uint8_t *data;
    size_t size;
    bool is64;
    section *sections;
    size_t nsections;
} elf_file;

/* A cursor over [off, off + len) of the file, checked against its size. */
static bool file_range(const elf_file *f, uint64_t off, uint64_t len, gcs_cursor *c)
{
    if (off > f->size || len > f->size - off)
        return false;
    *c = gcs_cur_make(f->data + off, (size_t)len, off);
    return true;
}

/* An address or offset: 8 bytes in ELF-64, 4 in ELF-32 (the cursor's
 * pointer read). */
static bool read_addr(gcs_cursor *c, bool is64, uint64_t *v)
{
    return gcs_cur_ptr(c, is64 ? 8 : 4, v);
}

static gcs_status read_section_header(const elf_file *f, gcs_cursor *c, section *s,
                                      gcs_error *err)
{
    /* sh_name, sh_type, then word-sized sh_flags, sh_addr, sh_offset,
     * sh_size, then sh_link, sh_info, then word-sized sh_addralign,
     * sh_entsize (a word: 8 bytes in ELF-64, 4 in ELF-32). */
    uint64_t at = gcs_cur_offset(c);
    uint32_t name, info;
    uint64_t flags, addr, align;
    bool ok = gcs_cur_u32(c, &name) && gcs_cur_u32(c, &s->type) &&
              read_addr(c, f->is64, &flags) && read_addr(c, f->is64, &addr) &&
              read_addr(c, f->is64, &s->offset) && read_addr(c, f->is64, &s->size) &&
              gcs_cur_u32(c, &s->link) && gcs_cur_u32(c, &info) &&
              read_addr(c, f->is64, &align) && read_addr(c, f->is64, &s->entsize);
    if (!ok)
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, at, "ELF section header cut short");
    return GCS_OK;
}

static gcs_status read_sections(elf_file *f, gcs_error *err)
{
    gcs_cursor h = gcs_cur_make(f->data, f->size, 0);
    uint64_t shoff;
    uint16_t shentsize, shnum;
    size_t at_shoff = f->is64 ? 40 : 32, at_shent = f->is64 ? 58 : 46;
    gcs_cursor c = h;
    if (!gcs_cur_skip(&c, at_shoff) || !read_addr(&c, f->is64, &shoff))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, 0, "ELF header cut short");
    c = h;
    if (!gcs_cur_skip(&c, at_shent) || !gcs_cur_u16(&c, &shentsize) || !gcs_cur_u16(&c, &shnum))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, 0, "ELF header cut short");
    if (shoff == 0)
        return GCS_OK; /* no section headers: no symbols */
    size_t min_entsize = f->is64 ? 64 : 40;
    if (shentsize < min_entsize)
        return GCS_CORRUPT(err, at_shent, "ELF section header size %u below %zu", shentsize,
                           min_entsize);
    uint64_t count = shnum;
    if (count == 0) { /* extended numbering: section 0's sh_size */
        gcs_cursor s0;
        section first;
        if (!file_range(f, shoff, shentsize, &s0))
            return GCS_FAIL(err, GCS_ERR_TRUNCATED, shoff, "ELF section 0 beyond the file");
        gcs_status st = read_section_header(f, &s0, &first, err);
        if (st != GCS_OK)
            return st;
        count = first.size;
    }
    if (count > GCS_SYMBOLS_MAX_SECTIONS)
        return GCS_FAIL(err, GCS_ERR_LIMIT, at_shent, "ELF file with %llu sections (limit %u)",
                        (unsigned long long)count, GCS_SYMBOLS_MAX_SECTIONS);
    gcs_cursor table;
    if (!file_range(f, shoff, count * shentsize, &table))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, shoff,
                        "ELF section headers (%llu of %u bytes) beyond the file",
                        (unsigned long long)count, shentsize);
    f->sections = calloc(count ? count : 1, sizeof *f->sections);
    if (!f->sections)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory for section headers");
    for (uint64_t i = 0; i < count; i++) {
        gcs_cursor one;
        bool ok = gcs_cur_sub(&table, shentsize, &one);
        assert(ok); /* the table's size was checked as a whole */
        gcs_status st = read_section_header(f, &one, &f->sections[i], err);
        if (st != GCS_OK)
            return st;
    }
    f->nsections = (size_t)count;
    return GCS_OK;
}

static void hex_upper(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = 0;
}

/* The first GNU build-id note of the SHT_NOTE sections. */
static gcs_status read_build_id(const elf_file *f, gcs_symbols *s, gcs_error *err)
{
    for (size_t i = 0; i < f->nsections; i++) {
        const section *sec = &f->sections[i];
        if (sec->type != SHT_NOTE)
            continue;
        gcs_cursor c;
        if (!file_range(f, sec->offset, sec->size, &c))
            return GCS_FAIL(err, GCS_ERR_TRUNCATED, sec->offset,
                            "ELF note section %zu beyond the file", i);
        while (gcs_cur_left(&c) > 0) {
            uint64_t at = gcs_cur_offset(&c);
            uint32_t namesz, descsz, type;
            const uint8_t *name, *desc;
            if (!gcs_cur_u32(&c, &namesz) || !gcs_cur_u32(&c, &descsz) || !gcs_cur_u32(&c, &type))
                return GCS_CORRUPT(err, at, "ELF note header cut short");
            size_t name_padded = ((size_t)namesz + 3) & ~(size_t)3;
            size_t desc_padded = ((size_t)descsz + 3) & ~(size_t)3;
            if (!gcs_cur_bytes(&c, name_padded, &name))
                return GCS_CORRUPT(err, at, "ELF note name (%u bytes) beyond its section", namesz);
            if (!gcs_cur_bytes(&c, desc_padded, &desc))
                return GCS_CORRUPT(err, at, "ELF note (%u bytes) beyond its section", descsz);
            if (type == 3 && namesz == 4 && memcmp(name, "GNU", 4) == 0 && descsz > 0 &&
                descsz <= (sizeof s->build_id - 1) / 2) {
                hex_upper(desc, descsz, s->build_id);
                return GCS_OK;
            }
        }
    }
    return GCS_OK;
}

/* `_ZTV` + decimal length + exactly that many bytes, or a statics
 * block's type: *name, *len. */
static bool type_symbol_name(const char *sym, size_t sym_len, const char **name, size_t *len)
{
    static const char statics[] = "__GCStaticEEType_";
    if (sym_len >= sizeof statics && memcmp(sym, statics, sizeof statics - 1) == 0) {
        *name = sym;
        *len = sym_len;
        return true;
    }
    if (sym_len < 6 || memcmp(sym, "_ZTV", 4) != 0)
        return false;
    size_t i = 4, n = 0;
    if (sym[i] < '1' || sym[i] > '9')
        return false;
    while (i < sym_len && sym[i] >= '0' && sym[i] <= '9') {
        n = n * 10 + (size_t)(sym[i] - '0');
        if (n > sym_len)
            return false;
        i++;
    }
    if (n != sym_len - i)
        return false;
    *name = sym + i;
    *len = n;
    return true;
}

static gcs_status add_type(gcs_symbols *s, uint64_t address, const char *name, size_t len,
                           gcs_error *err)
{
    if (len > GCS_SYMBOLS_MAX_NAME_BYTES) {
        s->stats.names_too_long++;
        return GCS_OK;
    }
    if (s->ntypes >= GCS_SYMBOLS_MAX_TYPES)
        return GCS_FAIL(err, GCS_ERR_LIMIT, 0, "more than %u type symbols",
                        GCS_SYMBOLS_MAX_TYPES);
    if (!gcs_array_reserve((void **)&s->types, &s->cap, s->ntypes + 1, sizeof *s->types, 1024))
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory for type symbols");
    const char *stored = gcs_arena_strndup(&s->names, name, len);
    if (!stored)
        return GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory for type names");
    s->types[s->ntypes].address = address;
    s->types[s->ntypes].name = stored;
    s->ntypes++;
    return GCS_OK;
}

static gcs_status read_symbols(const elf_file *f, const section *table, gcs_symbols *s,
                               gcs_error *err)
{
    size_t entsize = f->is64 ? 24 : 16;
    if (table->entsize < entsize)
        return GCS_CORRUPT(err, table->offset, "ELF symbol size %llu below %zu",
                           (unsigned long long)table->entsize, entsize);
    if (table->link >= f->nsections)
        return GCS_CORRUPT(err, table->offset, "ELF symbol table names section %u of %zu",
                           table->link, f->nsections);
    const section *strsec = &f->sections[table->link];
    gcs_cursor syms, strs;
    if (!file_range(f, table->offset, table->size, &syms))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, table->offset, "ELF symbol table beyond the file");
    if (strsec->type == SHT_NOBITS || !file_range(f, strsec->offset, strsec->size, &strs))
        return GCS_FAIL(err, GCS_ERR_TRUNCATED, strsec->offset,
                        "ELF string table of the symbols beyond the file");
    const uint8_t *strtab;
    size_t strtab_len = gcs_cur_left(&strs);
    bool ok = gcs_cur_bytes(&strs, strtab_len, &strtab);
    assert(ok);
    while (gcs_cur_left(&syms) >= table->entsize) {
        gcs_cursor one;
        ok = gcs_cur_sub(&syms, (size_t)table->entsize, &one);
        assert(ok);
        uint32_t name_off = 0, value32 = 0, size32 = 0;
        uint64_t value = 0, size64 = 0;
        uint8_t info = 0, other = 0;
        uint16_t shndx = 0;
        if (f->is64)
            ok = gcs_cur_u32(&one, &name_off) && gcs_cur_u8(&one, &info) &&
                 gcs_cur_u8(&one, &other) && gcs_cur_u16(&one, &shndx) &&
                 gcs_cur_u64(&one, &value) && gcs_cur_u64(&one, &size64);
        else {
            ok = gcs_cur_u32(&one, &name_off) && gcs_cur_u32(&one, &value32) &&
                 gcs_cur_u32(&one, &size32) && gcs_cur_u8(&one, &info) &&
                 gcs_cur_u8(&one, &other) && gcs_cur_u16(&one, &shndx);
            value = value32;
        }
        assert(ok); /* entsize >= the fields' size was checked */
        s->stats.symbols++;
        if (shndx == 0 || name_off >= strtab_len)
            continue;
        const char *sym = (const char *)strtab + name_off;
        const void *nul = memchr(sym, 0, strtab_len - name_off);
        if (!nul)
            continue; /* a name running off the table: not a name */
        const char *name;
        size_t len, sym_len = (size_t)((const char *)nul - sym);
        static const char debug_header[] = "DotNetRuntimeDebugHeader";
        if (sym_len == sizeof debug_header - 1 && memcmp(sym, debug_header, sym_len) == 0)
            s->stats.native_aot = true;
        if (!type_symbol_name(sym, sym_len, &name, &len))
            continue;
        gcs_status st = add_type(s, value, name, len, err);
        if (st != GCS_OK)
            return st;
    }
    return GCS_OK;
}

static int cmp_type(const void *a, const void *b)
{
    const type_symbol *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Sorted by address; one name per address (the smallest), the rest counted. */
static void sort_types(gcs_symbols *s)
{
    if (s->ntypes > 1)
        qsort(s->types, s->ntypes, sizeof *s->types, cmp_type);
    size_t k = 0;
    for (size_t i = 0; i < s->ntypes; i++) {
        if (k > 0 && s->types[k - 1].address == s->types[i].address) {
            s->stats.type_aliases++;
            continue;
        }
        s->types[k++] = s->types[i];
    }
    s->ntypes = k;
    s->stats.type_symbols = k;
}

gcs_symbols *gcs_symbols_parse(const void *data, size_t size, gcs_error *err)
{
    gcs_symbols *s = calloc(1, sizeof *s);
    if (!s) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    gcs_arena_init(&s->names, (size_t)256 << 20);
    elf_file f = {.data = data, .size = size};
    gcs_status st = GCS_OK;
    gcs_cursor c = gcs_cur_make(data, size, 0);
    const uint8_t *ident;
    if (!gcs_cur_bytes(&c, 16, &ident) || memcmp(ident, "\x7f" "ELF", 4) != 0) {
        st = GCS_FAIL(err, GCS_ERR_NOT_TRACE, 0, "not an ELF file (no \\x7fELF at its start)");
        goto fail;
    }
    if (ident[4] != 1 && ident[4] != 2) {
        st = GCS_CORRUPT(err, 4, "ELF class %u (1: 32-bit, 2: 64-bit)", ident[4]);
        goto fail;
    }
    if (ident[5] != 1) {
        st = GCS_FAIL(err, GCS_ERR_UNSUPPORTED, 5, "ELF data encoding %u: only little-endian (1)",
                      ident[5]);
        goto fail;
    }
    f.is64 = ident[4] == 2;
    s->stats.elf_class = f.is64 ? 64 : 32;
    if ((st = read_sections(&f, err)) != GCS_OK || (st = read_build_id(&f, s, err)) != GCS_OK)
        goto fail;
    /* The symbol table, else the dynamic one (a stripped executable's:
     * no type symbols, but NativeAOT's debug header shows there). */
    int want = SHT_SYMTAB;
    for (size_t i = 0; i < f.nsections; i++)
        if (f.sections[i].type == SHT_SYMTAB)
            s->stats.symbol_table = 1;
    if (!s->stats.symbol_table) {
        want = SHT_DYNSYM;
        for (size_t i = 0; i < f.nsections; i++)
            if (f.sections[i].type == SHT_DYNSYM)
                s->stats.symbol_table = 2;
    }
    for (size_t i = 0; i < f.nsections && st == GCS_OK; i++)
        if (f.sections[i].type == (uint32_t)want)
            st = read_symbols(&f, &f.sections[i], s, err);
    if (st != GCS_OK)
        goto fail;
    free(f.sections);
    sort_types(s);
    return s;
fail:
    free(f.sections);
    gcs_symbols_free(s);
    return NULL;
}

gcs_symbols *gcs_symbols_load(const char *path, gcs_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        GCS_FAIL(err, GCS_ERR_IO, 0, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        GCS_FAIL(err, GCS_ERR_IO, 0, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    if ((uint64_t)sb.st_size > GCS_SYMBOLS_MAX_FILE_BYTES) {
        GCS_FAIL(err, GCS_ERR_LIMIT, 0, "%s: %lld bytes (limit %llu)", path,
                 (long long)sb.st_size, (unsigned long long)GCS_SYMBOLS_MAX_FILE_BYTES);
        close(fd);
        return NULL;
    }
    size_t size = (size_t)sb.st_size;
    uint8_t *data = malloc(size ? size : 1);
    if (!data) {
        GCS_FAIL(err, GCS_ERR_NOMEM, 0, "out of memory reading %s", path);
        close(fd);
        return NULL;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            GCS_FAIL(err, GCS_ERR_IO, got, "%s: %s", path, n < 0 ? strerror(errno) : "shorter than it was");
            free(data);
            close(fd);
            return NULL;
        }
        got += (size_t)n;
    }
    close(fd);
    gcs_symbols *s = gcs_symbols_parse(data, size, err);
    free(data);
    return s;
}

void gcs_symbols_free(gcs_symbols *s)
{
    if (!s)
        return;
    free(s->types);
    gcs_arena_reset(&s->names);
    free(s);
}

const char *gcs_symbols_build_id(const gcs_symbols *s) { return s->build_id; }

const char *gcs_symbols_type_name(const gcs_symbols *s, uint64_t image_offset)
{
    size_t lo = 0, hi = s->ntypes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->types[mid].address < image_offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->ntypes && s->types[lo].address == image_offset ? s->types[lo].name : NULL;
}

size_t gcs_symbols_type_count(const gcs_symbols *s) { return s->ntypes; }

uint64_t gcs_symbols_type_address(const gcs_symbols *s, size_t index)
{
    return index < s->ntypes ? s->types[index].address : 0;
}

const gcs_symbols_stats *gcs_symbols_get_stats(const gcs_symbols *s) { return &s->stats; }
