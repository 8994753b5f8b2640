/*
 * gcscope/symbols.h - type names from a NativeAOT executable's symbols.
 *
 * A NativeAOT application's runtime writes no type names into its events:
 * AllocationTick's TypeName is the text "NULL" and no BulkType comes. Its
 * TypeID is the address of the type's MethodTable, which the ILCompiler
 * emits as a symbol named like a C++ vtable: `_ZTV<length><name>`
 * (`_ZTV6String`, `_ZTV18gcload_GcLoad_Node`, `_ZTV14__Array<UInt8>`).
 * The executable's symbol table (or that of its separate debug file,
 * `APP.dbg`, which `dotnet publish` writes beside it) therefore names every
 * type id: name = symbol at (TypeID - the image's load address).
 *
 *   gcs_symbols *s = gcs_symbols_load("out/app.dbg", &err);
 *   const char *name = gcs_symbols_type_name(s, type_id - image_base);
 *
 * The file is hostile input: ELF, 32- or 64-bit, little-endian; every
 * offset and size is checked against the file and the limits below. What
 * is read: the section headers, the symbol table (.symtab; .dynsym when
 * there is none) with its string table, and the GNU build-id note, which
 * a trace's module events (ModuleLoad version 3 and the rundown's
 * ModuleDCStart/DCStop) carry as NativeBuildID, so that symbols of another
 * build are recognised. docs/symbols.md gives the contract.
 */
#ifndef GCSCOPE_SYMBOLS_H
#define GCSCOPE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcscope/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest file gcs_symbols_load reads (it reads the file whole). */
#define GCS_SYMBOLS_MAX_FILE_BYTES ((uint64_t)2 << 30)
/* The most section headers and type symbols a file may have. */
#define GCS_SYMBOLS_MAX_SECTIONS 65536u
#define GCS_SYMBOLS_MAX_TYPES (16u << 20)
/* Longer type names are not kept (counted in names_too_long). */
#define GCS_SYMBOLS_MAX_NAME_BYTES 4096u

typedef struct gcs_symbols gcs_symbols;

/* What a file held. */
typedef struct gcs_symbols_stats {
    uint64_t symbols;        /* entries of the symbol table read */
    uint64_t type_symbols;   /* type symbols kept: distinct addresses */
    uint64_t type_aliases;   /* more type symbols at an address already named
                              * (the same name twice, or identical types folded) */
    uint64_t names_too_long; /* type symbols over GCS_SYMBOLS_MAX_NAME_BYTES */
    int elf_class;           /* 32 or 64 */
    int symbol_table;        /* 0 none, 1 .symtab, 2 .dynsym only */
    bool native_aot;         /* a symbol DotNetRuntimeDebugHeader (NativeAOT's runtime
                              * exports it for debuggers): a NativeAOT executable */
} gcs_symbols_stats;

/*
 * Reads an ELF file's type symbols. NULL on failure with err set:
 * GCS_ERR_NOT_TRACE (not ELF), GCS_ERR_UNSUPPORTED (big-endian),
 * GCS_ERR_CORRUPT / GCS_ERR_TRUNCATED with the offset, GCS_ERR_LIMIT,
 * GCS_ERR_IO, GCS_ERR_NOMEM. A file without a symbol table loads (with
 * no types): callers say so.
 */
gcs_symbols *gcs_symbols_load(const char *path, gcs_error *err);

/* The same from bytes in memory (not kept after the call). */
gcs_symbols *gcs_symbols_parse(const void *data, size_t size, gcs_error *err);

void gcs_symbols_free(gcs_symbols *s);

/* The GNU build ID as upper-case hex (as the trace's NativeBuildID writes
 * it), or "" when the file has none. */
const char *gcs_symbols_build_id(const gcs_symbols *s);

/* The type whose MethodTable symbol sits at image_offset exactly (the
 * name after `_ZTV<length>`), or NULL. */
const char *gcs_symbols_type_name(const gcs_symbols *s, uint64_t image_offset);

/* The type symbols' addresses, ascending: index 0 .. count-1. */
size_t gcs_symbols_type_count(const gcs_symbols *s);
uint64_t gcs_symbols_type_address(const gcs_symbols *s, size_t index);

const gcs_symbols_stats *gcs_symbols_get_stats(const gcs_symbols *s);

#ifdef __cplusplus
}
#endif
#endif
