/*
 * format/etl/etl_kernel.c - names, payload schemas and process/thread ids
 * of the kernel logger's events and of the classic events merged into
 * PerfView and xperf files. Every name below was confirmed on
 * net.4.5.2.x86.etl: each baseline event of that name is a record of
 * this (group, opcode) at the same time, processor and size, and the
 * counts agree (test_etl); the layouts were read from the records' bytes
 * against the values TraceEvent prints (docs/format-etl.md).
 */
#include "format/etl/etl_kernel.h"

#include <string.h>

#include "base/cursor.h"

#define KERNEL "Windows Kernel"
#define SYSTEM_TRACE "MSNT_SystemTrace"

#define F(n, t) {n, t, GCS_REPEAT_ONE, 0, NULL, 0, NULL, false}
#define FHEX(n, t) {n, t, GCS_REPEAT_ONE, 0, NULL, 0, NULL, true}

/*
 * Process Start/Stop/DCStart/DCStop/Defunct. Version 2: key, ids,
 * session, exit status, user SID, image file name (ANSI), command line
 * (UTF-16). Version 3 adds the page directory base after the exit status;
 * version 4 (Windows 8, the x86 file) the flags after it, and the package
 * full name and application id (UTF-16) at the end. Later versions keep
 * version 4's fields first (TraceEvent reads them so), anything after is
 * left unread. Field names are TraceEvent's.
 */
static const gcs_field process_v2[] = {
    FHEX("UniqueProcessKey", GCS_T_POINTER), F("ProcessID", GCS_T_U32),
    F("ParentID", GCS_T_U32),                F("SessionID", GCS_T_I32),
    F("ExitStatus", GCS_T_I32),              F("UserSID", GCS_T_SID),
    F("ImageFileName", GCS_T_ANSIZ),         F("CommandLine", GCS_T_UTF16Z),
};
static const gcs_field process_v3[] = {
    FHEX("UniqueProcessKey", GCS_T_POINTER), F("ProcessID", GCS_T_U32),
    F("ParentID", GCS_T_U32),                F("SessionID", GCS_T_I32),
    F("ExitStatus", GCS_T_I32),              FHEX("PageDirectoryBase", GCS_T_POINTER),
    F("UserSID", GCS_T_SID),                 F("ImageFileName", GCS_T_ANSIZ),
    F("CommandLine", GCS_T_UTF16Z),
};
static const gcs_field process_v4[] = {
    FHEX("UniqueProcessKey", GCS_T_POINTER), F("ProcessID", GCS_T_U32),
    F("ParentID", GCS_T_U32),                F("SessionID", GCS_T_I32),
    F("ExitStatus", GCS_T_I32),              FHEX("PageDirectoryBase", GCS_T_POINTER),
    F("Flags", GCS_T_U32),                   F("UserSID", GCS_T_SID),
    F("ImageFileName", GCS_T_ANSIZ),         F("CommandLine", GCS_T_UTF16Z),
    F("PackageFullName", GCS_T_UTF16Z),      F("ApplicationID", GCS_T_UTF16Z),
};

/*
 * Thread Start/Stop/DCStart/DCStop. Version 2: process and thread id,
 * kernel and user stack base and limit, start address, Win32 start
 * address, TEB base, sub-process tag; version 3 adds four priority and
 * flag bytes (72 bytes with 8-byte pointers, the x86 file). TraceEvent
 * names the seventh field StartAddr; in version 3 it holds the thread's
 * affinity (0xff in the x86 file).
 */
static const gcs_field thread_v2[] = {
    F("ProcessID", GCS_T_U32),           F("ThreadID", GCS_T_U32),
    FHEX("StackBase", GCS_T_POINTER),    FHEX("StackLimit", GCS_T_POINTER),
    FHEX("UserStackBase", GCS_T_POINTER), FHEX("UserStackLimit", GCS_T_POINTER),
    FHEX("StartAddr", GCS_T_POINTER),    FHEX("Win32StartAddr", GCS_T_POINTER),
    FHEX("TebBase", GCS_T_POINTER),      F("SubProcessTag", GCS_T_U32),
};
static const gcs_field thread_v3[] = {
    F("ProcessID", GCS_T_U32),           F("ThreadID", GCS_T_U32),
    FHEX("StackBase", GCS_T_POINTER),    FHEX("StackLimit", GCS_T_POINTER),
    FHEX("UserStackBase", GCS_T_POINTER), FHEX("UserStackLimit", GCS_T_POINTER),
    FHEX("StartAddr", GCS_T_POINTER),    FHEX("Win32StartAddr", GCS_T_POINTER),
    FHEX("TebBase", GCS_T_POINTER),      F("SubProcessTag", GCS_T_U32),
    F("BasePriority", GCS_T_U8),         F("PagePriority", GCS_T_U8),
    F("IoPriority", GCS_T_U8),           F("ThreadFlags", GCS_T_U8),
};

#define N(a) (uint32_t)(sizeof a / sizeof a[0])

/* TraceEvent's names by (group, opcode); provider NULL: "Windows Kernel". */
static const struct {
    uint8_t group, opcode;
    const char *name, *provider;
} kernel_names[] = {
    {0, 0, "EventTrace", NULL},
    {0, 5, "EventTrace/Extension", NULL},
    {0, 8, "EventTrace/RundownComplete", NULL},
    {0, 32, "EventTrace/EndExtension", NULL},
    {1, 10, "DiskIO/Read", NULL},
    {1, 11, "DiskIO/Write", NULL},
    {1, 12, "DiskIO/ReadInit", NULL},
    {1, 13, "DiskIO/WriteInit", NULL},
    {1, 14, "DiskIO/FlushBuffers", NULL},
    {1, 15, "DiskIO/FlushInit", NULL},
    {2, 32, "Memory/HardFault", NULL},
    {3, 1, "Process/Start", NULL},
    {3, 2, "Process/Stop", NULL},
    {3, 3, "Process/DCStart", NULL},
    {3, 4, "Process/DCStop", NULL},
    {3, 10, "Image/Load", NULL},
    {3, 32, "Process/PerfCtr", NULL},
    {3, 33, "Process/PerfCtrRundown", NULL},
    {3, 39, "Process/Defunct", NULL},
    {5, 1, "Thread/Start", NULL},
    {5, 2, "Thread/Stop", NULL},
    {5, 3, "Thread/DCStart", NULL},
    {5, 4, "Thread/DCStop", NULL},
    {6, 10, "TcpIp/Send", NULL},
    {6, 11, "TcpIp/Recv", NULL},
    {6, 13, "TcpIp/Disconnect", NULL},
    {6, 15, "TcpIp/Accept", NULL},
    {6, 26, "TcpIp/SendIPV6", NULL},
    {6, 27, "TcpIp/RecvIPV6", NULL},
    {8, 10, "UdpIp/Send", NULL},
    {8, 11, "UdpIp/Recv", NULL},
    {8, 26, "UdpIp/SendIPV6", NULL},
    {8, 27, "UdpIp/RecvIPV6", NULL},
    {11, 10, "SystemConfig/CPU", NULL},
    {11, 11, "SystemConfig/PhyDisk", NULL},
    {11, 12, "SystemConfig/LogDisk", NULL},
    {11, 13, "SystemConfig/NIC", NULL},
    {11, 15, "SystemConfig/Services", NULL},
    {11, 16, "SystemConfig/Power", NULL},
    {11, 17, "SystemConfig/Network", NULL},
    {11, 22, "SystemConfig/PnP", NULL},
    {11, 23, "SystemConfig/IDEChannel", NULL},
    {11, 25, "SystemConfig/Platform", SYSTEM_TRACE},
    {15, 46, "PerfInfo/Sample", NULL},
    {15, 73, "PerfInfo/CollectionStart", NULL},
    {15, 74, "PerfInfo/CollectionEnd", NULL},
    {20, 2, "Image/Unload", NULL},
    {20, 3, "Image/DCStart", NULL},
    {20, 4, "Image/DCStop", NULL},
    {20, 33, "Image/KernelBase", SYSTEM_TRACE},
};

gcs_etl_kernel_desc gcs_etl_kernel_describe(uint8_t group, uint8_t opcode, uint16_t version)
{
    gcs_etl_kernel_desc d = {KERNEL, NULL, NULL, 0};
    for (size_t i = 0; i < sizeof kernel_names / sizeof kernel_names[0]; i++)
        if (kernel_names[i].group == group && kernel_names[i].opcode == opcode) {
            d.name = kernel_names[i].name;
            if (kernel_names[i].provider)
                d.provider = kernel_names[i].provider;
            break;
        }
    bool process = group == GCS_ETL_GROUP_PROCESS && ((opcode >= 1 && opcode <= 4) || opcode == 39);
    bool thread = group == GCS_ETL_GROUP_THREAD && opcode >= 1 && opcode <= 4;
    if (process && version >= 4) {
        d.fields = process_v4;
        d.field_count = N(process_v4);
    } else if (process && version == 3) {
        d.fields = process_v3;
        d.field_count = N(process_v3);
    } else if (process && version == 2) {
        d.fields = process_v2;
        d.field_count = N(process_v2);
    } else if (thread && version >= 3) {
        d.fields = thread_v3;
        d.field_count = N(thread_v3);
    } else if (thread && version == 2) {
        d.fields = thread_v2;
        d.field_count = N(thread_v2);
    }
    return d;
}

/* Image events: image base and size (pointers), then the process id. */
static bool image_pid(gcs_cursor *c, uint32_t payload_pointer_size, uint32_t *pid)
{
    return gcs_cur_skip(c, 2 * (size_t)payload_pointer_size) && gcs_cur_u32(c, pid);
}

void gcs_etl_kernel_ids(uint8_t group, uint8_t opcode, uint16_t version, const uint8_t *payload,
                        size_t size, uint32_t payload_pointer_size, uint32_t *pid, uint64_t *tid)
{
    gcs_cursor c = gcs_cur_make(payload, size, 0);
    uint32_t a = 0, b = 0;
    const uint32_t none = UINT32_MAX;
    switch (group) {
    case GCS_ETL_GROUP_PROCESS:
        if ((opcode >= 1 && opcode <= 4) || opcode == 39) {
            /* The process id follows the unique process key (version 2 on). */
            if (version >= 2 && gcs_cur_skip(&c, payload_pointer_size) && gcs_cur_u32(&c, &a)) {
                *pid = a;
                *tid = none;
            }
        } else if (opcode == 32 || opcode == 33) {
            /* Process/PerfCtr(Rundown) start with the process id. */
            if (gcs_cur_u32(&c, &a)) {
                *pid = a;
                *tid = none;
            }
        } else if (opcode == 10 && image_pid(&c, payload_pointer_size, &a)) {
            *pid = a; /* Image/Load keeps the loading thread */
        }
        return;
    case GCS_ETL_GROUP_THREAD:
        if (opcode >= 1 && opcode <= 4 && version >= 1 && gcs_cur_u32(&c, &a) &&
            gcs_cur_u32(&c, &b)) {
            *pid = a;
            *tid = b;
        }
        return;
    case GCS_ETL_GROUP_TCPIP:
    case GCS_ETL_GROUP_UDPIP:
        /* Version 2 payloads start with the process id. */
        if (version >= 1 && gcs_cur_u32(&c, &a)) {
            *pid = a;
            *tid = none;
        }
        return;
    case GCS_ETL_GROUP_IMAGE:
        /* Unload and rundown: the image's process, no thread. */
        if (opcode >= 2 && opcode <= 4 && image_pid(&c, payload_pointer_size, &a)) {
            *pid = a;
            *tid = none;
        }
        return;
    default:
        return;
    }
}

/* Classic providers PerfView and xperf merge into their files. */
static const uint8_t kernel_trace_control[16] = {0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
                                                 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde};
static const uint8_t kernel_metadata[16] = {0xc1, 0xf6, 0xcc, 0xbb, 0xd1, 0x6c, 0xc4, 0x48,
                                            0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71};
static const uint8_t sys_config[16] = {0x91, 0xee, 0x79, 0x9b, 0xfd, 0xb5, 0xc0, 0x41,
                                       0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0};

static const struct {
    const uint8_t *guid;
    uint8_t opcode;
    const char *provider, *name;
} classic_names[] = {
    {kernel_trace_control, 0, "KernelTraceControl", "ImageID"},
    {kernel_trace_control, 32, "KernelTraceControl", "ImageID/None"},
    {kernel_trace_control, 36, "KernelTraceControl", "ImageID/DbgID_RSDS"},
    {kernel_trace_control, 37, "KernelTraceControl", "ImageID/DbgID_ILRSDS"},
    {kernel_trace_control, 64, "KernelTraceControl", "ImageID/FileVersion"},
    {kernel_metadata, 32, "KernelTraceControl", "MetaData/EventInfo"},
    {kernel_metadata, 33, "KernelTraceControl", "MetaData/EventMapInfo"},
    {sys_config, 32, KERNEL, "SysConfig/BuildInfo"},
    {sys_config, 33, KERNEL, "SysConfig/SystemPaths"},
    {sys_config, 34, KERNEL, "SysConfig/UnknownVolume"},
    {sys_config, 35, KERNEL, "SysConfig/VolumeMapping"},
    {sys_config, 37, KERNEL, "SysConfig/Opcode(37)"},
};

bool gcs_etl_classic_name(const uint8_t *guid, uint8_t opcode, const char **provider,
                          const char **name)
{
    for (size_t i = 0; i < sizeof classic_names / sizeof classic_names[0]; i++)
        if (classic_names[i].opcode == opcode && memcmp(classic_names[i].guid, guid, 16) == 0) {
            *provider = classic_names[i].provider;
            *name = classic_names[i].name;
            return true;
        }
    return false;
}
