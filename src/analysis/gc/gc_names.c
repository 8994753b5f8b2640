/*
 * analysis/gc/gc_names.c - names of GC enumerations, as the shared seeds
 * (Microsoft's GC event documentation) give them.
 */
#include "gcscope/gc.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *gcs_gc_reason_name(uint32_t reason)
{
    /* 0x8 is "Internal" in TraceEvent; the runtime documentation calls it
     * the GC stress reason. */
    static const char *const names[] = {
        "AllocSmall",       "Induced",          "LowMemory",     "Empty",
        "AllocLarge",       "OutOfSpaceSOH",    "OutOfSpaceLOH", "InducedNotForced",
        "Stress",           "InducedLowMemory", "InducedCompacting", "LowMemoryHost",
        "PMFullGC",         "LowMemoryHostBlocking", "BGCTuningSOH", "BGCTuningLOH",
        "BGCStepping",      "InducedAggressive"};
    return reason < COUNT(names) ? names[reason] : NULL;
}

const char *gcs_gc_type_name(uint32_t type)
{
    static const char *const names[] = {"NonConcurrentGC", "BackgroundGC", "ForegroundGC"};
    return type < COUNT(names) ? names[type] : NULL;
}

const char *gcs_gc_suspend_reason_name(uint32_t reason)
{
    static const char *const names[] = {"SuspendOther",       "SuspendForGC",
                                        "SuspendForAppDomainShutdown", "SuspendForCodePitching",
                                        "SuspendForShutdown", "SuspendForDebugger",
                                        "SuspendForGCPrep",   "SuspendForDebuggerSweep"};
    return reason < COUNT(names) ? names[reason] : NULL;
}

const char *gcs_gc_alloc_kind_name(uint32_t kind)
{
    static const char *const names[] = {"Small", "Large", "Pinned"};
    return kind < COUNT(names) ? names[kind] : NULL;
}

const char *gcs_gc_segment_type_name(uint32_t type)
{
    static const char *const names[] = {"SmallObjectHeap", "LargeObjectHeap", "ReadOnlyHeap",
                                        "PinnedObjectHeap"};
    return type < COUNT(names) ? names[type] : NULL;
}

const char *gcs_gc_compact_reason_name(uint32_t reason)
{
    static const char *const names[] = {
        "low_ephemeral",  "high_frag",      "no_gaps",        "loh_forced",
        "last_gc",        "induced_compacting", "fragmented_gen0", "high_mem_load",
        "high_mem_frag",  "vhigh_mem_frag", "no_gc_mode",     "aggressive_compacting"};
    return reason < COUNT(names) ? names[reason] : NULL;
}

const char *gcs_gc_condemned_group_name(uint32_t group)
{
    static const char *const names[GCS_GC_CONDEMNED_GROUPS] = {
        "Initial_Generation", "Final_Generation", "Alloc_Exceeded", "Time_Tuning", "Induced",
        "Low_Ephemeral", "Expand_Heap", "Fragmented_Ephemeral", "Fragmented_Gen1_To_Gen2",
        "Fragmented_Gen2", "Fragmented_Gen2_High_Mem", "GC_Before_OOM", "Too_Small_For_BGC",
        "Ephemeral_Before_BGC", "Internal_Tuning", "Almost_Max_Alloc", "Avoid_Unproductive",
        "Pm_Induced_Fullgc_p", "Pm_Alloc_LOH", "Gen1_In_Pm", "Limit_Before_OOM", "Limit_LOH_Frag",
        "Limit_LOH_Reclaim", "Servo_Initial", "Servo_NGC", "Servo_BGC", "Servo_Postpone",
        "Stress_Mix", "Stress", "Aggressive"};
    return group < GCS_GC_CONDEMNED_GROUPS ? names[group] : NULL;
}

const char *gcs_gc_incomplete_name(gcs_gc_incomplete why)
{
    switch (why) {
    case GCS_GC_INC_NONE: return "";
    case GCS_GC_INC_NO_END: return "no GCEnd";
    case GCS_GC_INC_NO_HEAP_STATS: return "no GCHeapStats";
    case GCS_GC_INC_NO_RESTART: return "no RestartEEEnd";
    case GCS_GC_INC_TRACE_ENDED: return "trace ended during the GC";
    case GCS_GC_INC_SUPERSEDED: return "another background GC started first";
    case GCS_GC_INC_BAD_TIMES: return "negative or absurd times";
    }
    return "?";
}
