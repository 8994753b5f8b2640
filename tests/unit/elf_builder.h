/*
 * elf_builder.h - small hand-made ELF files for the symbol reader's tests:
 * an ELF header, a GNU build-id note, a symbol table and its string table,
 * and the section headers (null, .note.gnu.build-id, .symtab, .strtab,
 * .shstrtab), 64- or 32-bit, little-endian. Built with the gABI's layouts,
 * not with a linker, so each field can be made wrong on purpose.
 */
#ifndef GCS_TESTS_ELF_BUILDER_H
#define GCS_TESTS_ELF_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "byte_builder.h"

typedef struct elf_sym {
    const char *name;
    uint64_t value;
    uint16_t shndx; /* 0: undefined */
} elf_sym;

typedef struct elf_spec {
    bool is32;
    const elf_sym *syms;
    size_t nsyms;
    const uint8_t *build_id; /* NULL: no note */
    size_t build_id_len;
    bool extended_shnum;     /* e_shnum 0, the count in section 0's sh_size */
    bool dynsym;             /* the table is SHT_DYNSYM, not SHT_SYMTAB */
} elf_spec;

static inline void elf_addr(bb *b, bool is32, uint64_t v)
{
    if (is32)
        bb_u32(b, (uint32_t)v);
    else
        bb_u64(b, v);
}

static inline void elf_pad4(bb *b)
{
    while (b->len % 4)
        bb_u8(b, 0);
}

/* One section header. */
static inline void elf_shdr(bb *b, bool is32, uint32_t name, uint32_t type, uint64_t off,
                            uint64_t size, uint32_t link, uint64_t entsize)
{
    bb_u32(b, name);
    bb_u32(b, type);
    elf_addr(b, is32, 0); /* flags */
    elf_addr(b, is32, 0); /* addr */
    elf_addr(b, is32, off);
    elf_addr(b, is32, size);
    bb_u32(b, link);
    bb_u32(b, 0);         /* info */
    elf_addr(b, is32, 1); /* addralign */
    elf_addr(b, is32, entsize);
}

/* Builds the file into b (emptied first). */
static inline void elf_build(bb *b, const elf_spec *s)
{
    bool is32 = s->is32;
    size_t ehsize = is32 ? 52 : 64, shentsize = is32 ? 40 : 64, symsize = is32 ? 16 : 24;
    b->len = 0;
    bb_zeros(b, ehsize); /* the header is written last, over these bytes */
    /* note */
    size_t note_off = b->len;
    if (s->build_id) {
        bb_u32(b, 4);
        bb_u32(b, (uint32_t)s->build_id_len);
        bb_u32(b, 3);
        bb_bytes(b, "GNU", 4);
        bb_bytes(b, s->build_id, s->build_id_len);
        elf_pad4(b);
    }
    size_t note_size = b->len - note_off;
    /* string table */
    size_t strtab_off = b->len;
    bb_u8(b, 0);
    uint32_t name_off[64];
    assert(s->nsyms <= 64);
    for (size_t i = 0; i < s->nsyms; i++) {
        name_off[i] = (uint32_t)(b->len - strtab_off);
        bb_bytes(b, s->syms[i].name, strlen(s->syms[i].name) + 1);
    }
    size_t strtab_size = b->len - strtab_off;
    elf_pad4(b);
    /* symbols: the null symbol, then the given ones */
    size_t symtab_off = b->len;
    bb_zeros(b, symsize);
    for (size_t i = 0; i < s->nsyms; i++) {
        bb_u32(b, name_off[i]);
        if (is32) {
            bb_u32(b, (uint32_t)s->syms[i].value);
            bb_u32(b, 8);  /* size */
            bb_u8(b, 0x11); /* global object */
            bb_u8(b, 0);
            bb_u16(b, s->syms[i].shndx);
        } else {
            bb_u8(b, 0x11);
            bb_u8(b, 0);
            bb_u16(b, s->syms[i].shndx);
            bb_u64(b, s->syms[i].value);
            bb_u64(b, 8);
        }
    }
    size_t symtab_size = b->len - symtab_off;
    /* section names */
    size_t shstr_off = b->len;
    static const char shstr[] = "\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
    bb_bytes(b, shstr, sizeof shstr);
    elf_pad4(b);
    /* section headers */
    size_t shoff = b->len;
    uint16_t shnum = 5;
    elf_shdr(b, is32, 0, 0, 0, s->extended_shnum ? shnum : 0, 0, 0);
    elf_shdr(b, is32, 1, 7, note_off, note_size, 0, 0);
    elf_shdr(b, is32, 20, s->dynsym ? 11 : 2, symtab_off, symtab_size, 3, symsize);
    elf_shdr(b, is32, 28, 3, strtab_off, strtab_size, 0, 0);
    elf_shdr(b, is32, 36, 3, shstr_off, sizeof shstr, 0, 0);
    /* header */
    bb h = {0};
    bb_bytes(&h, "\x7f" "ELF", 4);
    bb_u8(&h, is32 ? 1 : 2);
    bb_u8(&h, 1); /* little-endian */
    bb_u8(&h, 1);
    bb_zeros(&h, 9);
    bb_u16(&h, 3);    /* ET_DYN */
    bb_u16(&h, is32 ? 3 : 62);
    bb_u32(&h, 1);
    elf_addr(&h, is32, 0); /* entry */
    elf_addr(&h, is32, 0); /* phoff */
    elf_addr(&h, is32, shoff);
    bb_u32(&h, 0);         /* flags */
    bb_u16(&h, (uint16_t)ehsize);
    bb_u16(&h, 0);         /* phentsize */
    bb_u16(&h, 0);         /* phnum */
    bb_u16(&h, (uint16_t)shentsize);
    bb_u16(&h, s->extended_shnum ? 0 : shnum);
    bb_u16(&h, 4);         /* shstrndx */
    assert(h.len == ehsize);
    memcpy(b->data, h.data, ehsize);
}

#endif
