/*
 * gcscope.h - the public API of libgcscope: read .NET runtime traces and
 * understand the garbage collector from them.
 */
#ifndef GCSCOPE_H
#define GCSCOPE_H
#include "gcscope/core.h"
#include "gcscope/reader.h"
#include "gcscope/decode.h"
#include "gcscope/gc.h"
#include "gcscope/objects.h"
#include "gcscope/live.h"
#include "gcscope/process.h"
#include "gcscope/gc_insight.h"
#include "gcscope/symbols.h"
#include "gcscope/finalized.h"
#include "gcscope/allocs.h"
#endif
