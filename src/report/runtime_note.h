/*
 * runtime_note.h - what a runtime version does not say, for the reports'
 * headers: the runtime it is, from RuntimeInformation's Sku.
 */
#ifndef GCS_REPORT_RUNTIME_NOTE_H
#define GCS_REPORT_RUNTIME_NOTE_H

#include <string.h>

#include "gcscope/gc.h"

/* " (.NET Framework)", the note on CoreCLR's pre-.NET 5 version, the
 * NativeAOT note, or "". */
static inline const char *gcs_runtime_note(const gcs_gc_process *p)
{
    if (p->native_aot)
        return " (NativeAOT application: its runtime reports no version)";
    if (p->runtime_sku == 1)
        return " (.NET Framework)";
    if (p->runtime_sku == 2 && strncmp(p->runtime_version, "4.0.30319.", 10) == 0)
        return " (.NET Core 3.1 or earlier: CoreCLR reported this version before .NET 5)";
    return "";
}

#endif
