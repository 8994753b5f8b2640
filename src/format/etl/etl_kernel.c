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

#include <stdlib.h>
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

/* EventTrace Extension/EndExtension (version 2, 36 bytes): the kernel
 * logger's group masks and event version. */
static const gcs_field eventtrace_extension[] = {
    F("GroupMask1", GCS_T_U32), F("GroupMask2", GCS_T_U32), F("GroupMask3", GCS_T_U32),
    F("GroupMask4", GCS_T_U32), F("GroupMask5", GCS_T_U32), F("GroupMask6", GCS_T_U32),
    F("GroupMask7", GCS_T_U32), F("GroupMask8", GCS_T_U32), F("KernelEventVersion", GCS_T_U32),
};

/* DiskIO version 3 (x86 file): Read/Write 52 bytes, the Init events 12,
 * FlushBuffers 28 with 8-byte pointers. TraceEvent shows the file object
 * as FileKey and derives the elapsed times and the file name. */
static const gcs_field diskio_rw[] = {
    F("DiskNumber", GCS_T_U32),       FHEX("IrpFlags", GCS_T_U32),
    F("TransferSize", GCS_T_U32),     F("Reserved", GCS_T_U32),
    F("ByteOffset", GCS_T_I64),       FHEX("FileKey", GCS_T_POINTER),
    FHEX("Irp", GCS_T_POINTER),       F("HighResResponseTime", GCS_T_U64),
    F("IssuingThreadID", GCS_T_U32),
};
static const gcs_field diskio_init[] = {
    FHEX("Irp", GCS_T_POINTER), F("IssuingThreadID", GCS_T_U32),
};
static const gcs_field diskio_flush[] = {
    F("DiskNumber", GCS_T_U32),          FHEX("IrpFlags", GCS_T_U32),
    F("HighResResponseTime", GCS_T_U64), FHEX("Irp", GCS_T_POINTER),
    F("IssuingThreadID", GCS_T_U32),
};

/* Memory/HardFault version 2 (40 bytes). */
static const gcs_field hard_fault[] = {
    F("InitialTime", GCS_T_U64),      F("ReadOffset", GCS_T_U64),
    FHEX("VirtualAddress", GCS_T_POINTER), FHEX("FileKey", GCS_T_POINTER),
    F("ThreadID", GCS_T_U32),         F("ByteCount", GCS_T_U32),
};

/* Process/PerfCtr(Rundown) version 2 (104 bytes); TraceEvent calls the
 * page fault count MemoryCount. */
static const gcs_field process_counters[] = {
    F("ProcessID", GCS_T_U32),               F("MemoryCount", GCS_T_U32),
    F("HandleCount", GCS_T_U32),             F("Reserved", GCS_T_U32),
    F("PeakVirtualSize", GCS_T_POINTER),     F("PeakWorkingSetSize", GCS_T_POINTER),
    F("PeakPagefileUsage", GCS_T_POINTER),   F("QuotaPeakPagedPoolUsage", GCS_T_POINTER),
    F("QuotaPeakNonPagedPoolUsage", GCS_T_POINTER), F("VirtualSize", GCS_T_POINTER),
    F("WorkingSetSize", GCS_T_POINTER),      F("PagefileUsage", GCS_T_POINTER),
    F("QuotaPagedPoolUsage", GCS_T_POINTER), F("QuotaNonPagedPoolUsage", GCS_T_POINTER),
    F("PrivatePageCount", GCS_T_POINTER),
};

/* PerfInfo/Sample version 2 (16 bytes): TraceEvent derives Priority,
 * Rank, ExecutingDPC/ISR from the last 16 bits (0x58: priority 11). */
static const gcs_field perfinfo_sample[] = {
    FHEX("InstructionPointer", GCS_T_POINTER), F("ThreadID", GCS_T_U32),
    F("Count", GCS_T_U16), FHEX("Reserved", GCS_T_U16),
};

/* PerfInfo CollectionStart/End version 3: the sample source, its new and
 * old interval (100 ns), its name ("Timer"). */
static const gcs_field perfinfo_collection[] = {
    F("SampleSource", GCS_T_U32), F("NewInterval", GCS_T_U32), F("OldInterval", GCS_T_U32),
    F("SourceName", GCS_T_UTF16Z),
};

/* k UTF-16 code units, the text up to the first 0x0000. */
#define FUTF16(n, k) {n, GCS_T_UTF16_FIXED, GCS_REPEAT_FIXED, k, NULL, 0, NULL, false}
/* Padding to the next multiple of k bytes from the payload start. */
#define FPAD(k) {NULL, GCS_T_NONE, GCS_REPEAT_FIXED, k, NULL, 0, NULL, false}

/* SystemConfig/CPU version 2 and later (version 3, 828 bytes, in the x86
 * file): five sizes, the computer name (256 units) and domain name (134
 * units; 132 before version 2, not seen), the hyper-threading flag (a
 * pointer); the rest is left unread. */
static const gcs_field config_cpu[] = {
    F("MHz", GCS_T_I32),          F("NumberOfProcessors", GCS_T_I32),
    F("MemSize", GCS_T_I32),      F("PageSize", GCS_T_I32),
    F("AllocationGranularity", GCS_T_I32), FUTF16("ComputerName", 256),
    FUTF16("DomainName", 134),    FHEX("HyperThreadingFlag", GCS_T_POINTER),
};

/* SystemConfig/PhyDisk version 2 (568 bytes): disk geometry, SCSI
 * address, manufacturer (256 units), partition count, write cache byte,
 * a pad byte, boot drive letter (3 units) and 2 spare units. */
static const gcs_field config_phy_disk[] = {
    F("DiskNumber", GCS_T_I32),        F("BytesPerSector", GCS_T_I32),
    F("SectorsPerTrack", GCS_T_I32),   F("TracksPerCylinder", GCS_T_I32),
    F("Cylinders", GCS_T_I64),         F("SCSIPort", GCS_T_I32),
    F("SCSIPath", GCS_T_I32),          F("SCSITarget", GCS_T_I32),
    F("SCSILun", GCS_T_I32),           FUTF16("Manufacturer", 256),
    F("PartitionCount", GCS_T_I32),    F("WriteCacheEnabled", GCS_T_U8),
    FPAD(2),                           FUTF16("BootDriveLetter", 3),
    FUTF16("Spare", 2),
};

/* SystemConfig/LogDisk version 2 (112 bytes): partition offset and size,
 * disk, drive letter (4 units), partition number, cluster geometry, free
 * and total clusters, file system name (16 units); pads to 8 bytes. */
static const gcs_field config_log_disk[] = {
    F("StartOffset", GCS_T_I64),        F("PartitionSize", GCS_T_I64),
    F("DiskNumber", GCS_T_I32),         F("Size", GCS_T_I32),
    F("DriveType", GCS_T_I32),          FUTF16("DriveLetterString", 4),
    FPAD(8),                            F("PartitionNumber", GCS_T_I32),
    F("SectorsPerCluster", GCS_T_I32),  F("BytesPerSector", GCS_T_I32),
    FPAD(8),                            F("NumberOfFreeClusters", GCS_T_I64),
    F("TotalNumberOfClusters", GCS_T_I64), FUTF16("FileSystem", 16),
    F("VolumeExt", GCS_T_I32),
};

/* SystemConfig/Services version 3. */
static const gcs_field config_services[] = {
    F("ProcessID", GCS_T_U32),         F("ServiceState", GCS_T_U32),
    F("SubProcessTag", GCS_T_U32),     F("ServiceName", GCS_T_UTF16Z),
    F("DisplayName", GCS_T_UTF16Z),    F("ProcessName", GCS_T_UTF16Z),
};

/* SystemConfig/Network version 2 (16 bytes): TCP tuning values;
 * MaxHashTableSize is -1 in the x86 file (signed, as TraceEvent shows). */
static const gcs_field config_network[] = {
    F("TcbTablePartitions", GCS_T_I32), F("MaxHashTableSize", GCS_T_I32),
    F("MaxUserPort", GCS_T_I32),        F("TcpTimedWaitDelay", GCS_T_I32),
};

/* SystemConfig/Power version 2 (8 bytes): one byte per sleep state S1-S5,
 * then padding (left unread). */
static const gcs_field config_power[] = {
    F("S1", GCS_T_U8), F("S2", GCS_T_U8), F("S3", GCS_T_U8), F("S4", GCS_T_U8), F("S5", GCS_T_U8),
};

/* SystemConfig/IDEChannel version 2: four 32-bit values, then the
 * location (UTF-16). */
static const gcs_field config_ide_channel[] = {
    F("TargetID", GCS_T_I32),               F("DeviceType", GCS_T_I32),
    F("DeviceTimingMode", GCS_T_I32),       F("LocationInformationLen", GCS_T_I32),
    F("LocationInformation", GCS_T_UTF16Z),
};

/* SystemConfig/NIC version 2: the MAC address as a 64-bit number (shown
 * in decimal, as TraceEvent does), its length, the interface indexes,
 * then three UTF-16 strings. */
static const gcs_field config_nic[] = {
    F("PhysicalAddr", GCS_T_I64),      F("PhysicalAddrLen", GCS_T_I32),
    F("Ipv4Index", GCS_T_I32),         F("Ipv6Index", GCS_T_I32),
    F("NICDescription", GCS_T_UTF16Z), F("IpAddresses", GCS_T_UTF16Z),
    F("DnsServerAddresses", GCS_T_UTF16Z),
};

/*
 * TcpIp and UdpIp version 2: process, size, destination and source
 * address, destination and source port, then per event kind. Addresses
 * and ports are in network byte order: shown as TraceEvent shows them
 * (10.128.0.55 dotted, IPv6 as text, port 445 as a number).
 */
#define NET_HEAD(addr_type)                                                                    \
    F("PID", GCS_T_U32), F("size", GCS_T_U32), F("daddr", addr_type), F("saddr", addr_type),  \
        F("dport", GCS_T_PORT), F("sport", GCS_T_PORT)
/* Send (IPv4 40 bytes, IPv6 64): send start and end times. */
static const gcs_field tcp_send[] = {
    NET_HEAD(GCS_T_IPV4), F("startime", GCS_T_U32), F("endtime", GCS_T_U32), F("seqnum", GCS_T_U32),
    FHEX("connid", GCS_T_POINTER),
};
static const gcs_field tcp_send_v6[] = {
    NET_HEAD(GCS_T_IPV6), F("startime", GCS_T_U32), F("endtime", GCS_T_U32), F("seqnum", GCS_T_U32),
    FHEX("connid", GCS_T_POINTER),
};
/* Recv, Disconnect and the UdpIp Send/Recv (IPv4 32 bytes, IPv6 56). */
static const gcs_field net_plain[] = {
    NET_HEAD(GCS_T_IPV4), F("seqnum", GCS_T_U32), FHEX("connid", GCS_T_POINTER),
};
static const gcs_field net_plain_v6[] = {
    NET_HEAD(GCS_T_IPV6), F("seqnum", GCS_T_U32), FHEX("connid", GCS_T_POINTER),
};
/* Accept (and Connect), IPv4 48 bytes: the negotiated TCP options. */
static const gcs_field tcp_connect[] = {
    NET_HEAD(GCS_T_IPV4),                  F("mss", GCS_T_U16),          F("sackopt", GCS_T_U16),
    F("tsopt", GCS_T_U16),        F("wsopt", GCS_T_U16),        F("rcvwin", GCS_T_U32),
    F("rcvwinscale", GCS_T_I16),  F("sndwinscale", GCS_T_I16),  F("seqnum", GCS_T_U32),
    FHEX("connid", GCS_T_POINTER),
};

/* SystemConfig/PnP: version 4 starts with the device class GUID and the
 * counts of upper and lower filter strings, version 5 adds the device
 * status and problem; then the device's strings (the filter strings
 * after them are left unread). The first five names are ours (TraceEvent
 * does not show them). */
#define PNP_STRINGS                                                                              \
    F("DeviceID", GCS_T_UTF16Z), F("DeviceDescription", GCS_T_UTF16Z),                         \
        F("FriendlyName", GCS_T_UTF16Z), F("PdoName", GCS_T_UTF16Z), F("ServiceName", GCS_T_UTF16Z)
static const gcs_field config_pnp_v4[] = {
    F("ClassGuid", GCS_T_GUID), F("UpperFilterCount", GCS_T_U32), F("LowerFilterCount", GCS_T_U32),
    PNP_STRINGS,
};
static const gcs_field config_pnp_v5[] = {
    F("ClassGuid", GCS_T_GUID),  F("UpperFilterCount", GCS_T_U32), F("LowerFilterCount", GCS_T_U32),
    F("DevStatus", GCS_T_U32),   F("DevProblem", GCS_T_U32),       PNP_STRINGS,
};

/* MSNT_SystemTrace/SystemConfig/Platform: four UTF-16 strings (112 bytes
 * in the x86 file). */
static const gcs_field config_platform[] = {
    F("SystemManufacturer", GCS_T_UTF16Z), F("SystemProductName", GCS_T_UTF16Z),
    F("BiosDate", GCS_T_UTF16Z),           F("BiosVersion", GCS_T_UTF16Z),
};

/* Image Load/Unload/DCStart/DCStop version 2: TraceEvent reads the
 * reserved 32 bits after TimeDateStamp as part of nothing and DefaultBase
 * as a pointer after them (0x77710000000e0000 for a WoW64 ntdll: the
 * same bytes). */
static const gcs_field image_v2[] = {
    FHEX("ImageBase", GCS_T_POINTER),  F("ImageSize", GCS_T_POINTER),
    F("ProcessID", GCS_T_U32),         F("ImageChecksum", GCS_T_U32),
    F("TimeDateStamp", GCS_T_I32),     F("Reserved0", GCS_T_U32),
    FHEX("DefaultBase", GCS_T_POINTER), F("Reserved1", GCS_T_U32),
    F("Reserved2", GCS_T_U32),         F("Reserved3", GCS_T_U32),
    F("Reserved4", GCS_T_U32),         F("FileName", GCS_T_UTF16Z),
};
static const gcs_field image_kernel_base[] = {FHEX("ImageBase", GCS_T_POINTER)};

#define N(a) (uint32_t)(sizeof a / sizeof a[0])

/* Schemas of the other kernel events, by (group, opcode, lowest version). */
static const struct {
    uint8_t group, opcode;
    uint16_t min_version;
    const gcs_field *fields;
    uint32_t count;
} kernel_schemas[] = {
    {0, 5, 2, eventtrace_extension, N(eventtrace_extension)},
    {0, 32, 2, eventtrace_extension, N(eventtrace_extension)},
    {1, 10, 3, diskio_rw, N(diskio_rw)},
    {1, 11, 3, diskio_rw, N(diskio_rw)},
    {1, 12, 3, diskio_init, N(diskio_init)},
    {1, 13, 3, diskio_init, N(diskio_init)},
    {1, 14, 3, diskio_flush, N(diskio_flush)},
    {1, 15, 3, diskio_init, N(diskio_init)},
    {2, 32, 2, hard_fault, N(hard_fault)},
    {3, 32, 2, process_counters, N(process_counters)},
    {3, 33, 2, process_counters, N(process_counters)},
    {6, 10, 2, tcp_send, N(tcp_send)},
    {6, 11, 2, net_plain, N(net_plain)},
    {6, 13, 2, net_plain, N(net_plain)},
    {6, 15, 2, tcp_connect, N(tcp_connect)},
    {6, 26, 2, tcp_send_v6, N(tcp_send_v6)},
    {6, 27, 2, net_plain_v6, N(net_plain_v6)},
    {8, 10, 2, net_plain, N(net_plain)},
    {8, 11, 2, net_plain, N(net_plain)},
    {8, 26, 2, net_plain_v6, N(net_plain_v6)},
    {8, 27, 2, net_plain_v6, N(net_plain_v6)},
    {11, 10, 2, config_cpu, N(config_cpu)},
    {11, 11, 2, config_phy_disk, N(config_phy_disk)},
    {11, 12, 2, config_log_disk, N(config_log_disk)},
    {11, 13, 2, config_nic, N(config_nic)},
    {11, 15, 3, config_services, N(config_services)},
    {11, 16, 2, config_power, N(config_power)},
    {11, 22, 4, config_pnp_v4, N(config_pnp_v4)},
    {11, 22, 5, config_pnp_v5, N(config_pnp_v5)},
    {11, 25, 2, config_platform, N(config_platform)},
    {11, 17, 2, config_network, N(config_network)},
    {11, 23, 2, config_ide_channel, N(config_ide_channel)},
    {15, 46, 2, perfinfo_sample, N(perfinfo_sample)},
    {15, 73, 3, perfinfo_collection, N(perfinfo_collection)},
    {15, 74, 3, perfinfo_collection, N(perfinfo_collection)},
    {3, 10, 2, image_v2, N(image_v2)},
    {20, 2, 2, image_v2, N(image_v2)},
    {20, 3, 2, image_v2, N(image_v2)},
    {20, 4, 2, image_v2, N(image_v2)},
    {20, 33, 2, image_kernel_base, N(image_kernel_base)},
};

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
    } else {
        /* Layouts seen in one version only: that version and later (a
         * later one may append fields, left unread). */
        for (size_t i = 0; i < sizeof kernel_schemas / sizeof kernel_schemas[0]; i++)
            if (kernel_schemas[i].group == group && kernel_schemas[i].opcode == opcode &&
                version >= kernel_schemas[i].min_version) {
                d.fields = kernel_schemas[i].fields;
                d.field_count = kernel_schemas[i].count;
            }
    }
    return d;
}

void gcs_etl_threads_free(gcs_etl_threads *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->n = 0;
}

static size_t thread_slot(const gcs_etl_threads *t, uint32_t tid)
{
    size_t h = (size_t)(tid * 2654435761u) & (t->cap - 1);
    while (t->slots[h].used && t->slots[h].tid != tid)
        h = (h + 1) & (t->cap - 1);
    return h;
}

static void thread_note(gcs_etl_threads *t, uint32_t tid, uint32_t pid)
{
    if ((t->n + 1) * 2 > t->cap) {
        if (t->cap >= 2 * GCS_ETL_MAX_THREADS)
            return; /* full: stop learning */
        size_t cap = t->cap ? t->cap * 2 : 1024;
        gcs_etl_thread_slot *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return; /* out of memory: the processes stay unknown (-1) */
        gcs_etl_threads old = *t;
        t->slots = slots;
        t->cap = cap;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i].used)
                t->slots[thread_slot(t, old.slots[i].tid)] = old.slots[i];
        free(old.slots);
    }
    size_t h = thread_slot(t, tid);
    if (!t->slots[h].used)
        t->n++;
    t->slots[h] = (gcs_etl_thread_slot){tid, pid, true};
}

static uint32_t thread_pid(const gcs_etl_threads *t, uint32_t tid)
{
    if (!t->cap)
        return UINT32_MAX;
    size_t h = thread_slot(t, tid);
    return t->slots[h].used ? t->slots[h].pid : UINT32_MAX;
}

/* Image events: image base and size (pointers), then the process id. */
static bool image_pid(gcs_cursor *c, uint32_t payload_pointer_size, uint32_t *pid)
{
    return gcs_cur_skip(c, 2 * (size_t)payload_pointer_size) && gcs_cur_u32(c, pid);
}

/* The thread id at offset `at` of the payload: *tid and its process. */
static void ids_of_thread_at(gcs_cursor *c, size_t at, const gcs_etl_threads *threads,
                             uint32_t *pid, uint64_t *tid)
{
    uint32_t thread;
    if (gcs_cur_skip(c, at) && gcs_cur_u32(c, &thread)) {
        *tid = thread;
        *pid = thread_pid(threads, thread);
    }
}

void gcs_etl_kernel_ids(uint8_t group, uint8_t opcode, uint16_t version, const uint8_t *payload,
                        size_t size, uint32_t payload_pointer_size, gcs_etl_threads *threads,
                        uint32_t *pid, uint64_t *tid)
{
    gcs_cursor c = gcs_cur_make(payload, size, 0);
    uint32_t a = 0, b = 0;
    const uint32_t none = UINT32_MAX;
    size_t ptr = payload_pointer_size;
    switch (group) {
    case GCS_ETL_GROUP_PROCESS:
        if ((opcode >= 1 && opcode <= 4) || opcode == 39) {
            /* The process id follows the unique process key (version 2 on). */
            if (version >= 2 && gcs_cur_skip(&c, ptr) && gcs_cur_u32(&c, &a)) {
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
            thread_note(threads, b, a);
        }
        return;
    case GCS_ETL_GROUP_DISKIO:
        /* Read/Write (version 2 on): disk number, IRP flags, transfer
         * size, reserved (4 each), byte offset (8), file object and IRP
         * (pointers), response time (8), then the issuing thread.
         * FlushBuffers: disk number, IRP flags (4 each), response time
         * (8), IRP (pointer), then the thread (TraceEvent reads the
         * response time's low half there: docs/format-etl.md). */
        if ((opcode == 10 || opcode == 11) && version >= 2)
            ids_of_thread_at(&c, 24 + 2 * ptr + 8, threads, pid, tid);
        else if (opcode == 14 && version >= 2)
            ids_of_thread_at(&c, 16 + ptr, threads, pid, tid);
        return;
    case GCS_ETL_GROUP_MEMORY:
        /* HardFault: initial time, read offset (8 each), virtual address
         * and file object (pointers), then the thread. */
        if (opcode == 32 && version >= 2)
            ids_of_thread_at(&c, 16 + 2 * ptr, threads, pid, tid);
        return;
    case GCS_ETL_GROUP_PERFINFO:
        /* Sample: the instruction pointer, then the thread. */
        if (opcode == 46 && version >= 2)
            ids_of_thread_at(&c, ptr, threads, pid, tid);
        return;
    case GCS_ETL_GROUP_CONFIG:
        /* Services (version 3): the service's process id first; the
         * thread stays the logger's. */
        if (opcode == 15 && version >= 3 && gcs_cur_u32(&c, &a))
            *pid = a;
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

/* RT_LostEvent {6a399ae0-4bc6-4de9-870b-3657f8947e7e}: written into a
 * real-time session's stream when it lost events (32), buffers (33) or
 * its log file (34). No file at hand has one: the names are ours. */
static const uint8_t rt_lost_event[16] = {0xe0, 0x9a, 0x39, 0x6a, 0xc6, 0x4b, 0xe9, 0x4d,
                                          0x87, 0x0b, 0x36, 0x57, 0xf8, 0x94, 0x7e, 0x7e};

const char *gcs_etl_lost_event_kind(const uint8_t *guid, uint8_t opcode)
{
    if (memcmp(guid, rt_lost_event, 16) != 0)
        return NULL;
    switch (opcode) {
    case 32: return "events";
    case 33: return "buffers";
    case 34: return "a log file";
    default: return NULL;
    }
}

/* KernelTraceControl ImageID (version 2, 44 bytes for ntdll.dll): image
 * base and size, process, time stamp, original file name. */
static const gcs_field ktc_image_id[] = {
    FHEX("ImageBase", GCS_T_POINTER), F("ImageSize", GCS_T_POINTER),
    F("ProcessID", GCS_T_U32),        F("TimeDateStamp", GCS_T_U32),
    F("OriginalFileName", GCS_T_UTF16Z),
};
/* DbgID_RSDS / DbgID_ILRSDS (version 2, 43 bytes for wntdll.pdb): the PDB
 * signature of an image. */
static const gcs_field ktc_dbg_id[] = {
    FHEX("ImageBase", GCS_T_POINTER), F("ProcessID", GCS_T_U32), F("GuidSig", GCS_T_GUID),
    F("Age", GCS_T_U32),              F("PDBFileName", GCS_T_ANSIZ),
};
/* SysConfig SystemPaths and VolumeMapping: two UTF-16 strings. */
static const gcs_field sysconfig_paths[] = {
    F("SystemDirectory", GCS_T_UTF16Z), F("SystemWindowsDirectory", GCS_T_UTF16Z),
};
static const gcs_field sysconfig_volume_mapping[] = {
    F("NtPath", GCS_T_UTF16Z), F("DosPath", GCS_T_UTF16Z),
};

/* ImageID/FileVersion (version 2, 322 bytes for ntdll.dll): image size
 * and time stamp, then ten UTF-16 strings of the image's version
 * resource (VerLanguage is text: "1033"). TraceEvent adds BuildTime from
 * the time stamp. */
static const gcs_field ktc_file_version[] = {
    F("ImageSize", GCS_T_I32),          F("TimeDateStamp", GCS_T_I32),
    F("OrigFileName", GCS_T_UTF16Z),    F("FileDescription", GCS_T_UTF16Z),
    F("FileVersion", GCS_T_UTF16Z),     F("BinFileVersion", GCS_T_UTF16Z),
    F("VerLanguage", GCS_T_UTF16Z),     F("ProductName", GCS_T_UTF16Z),
    F("CompanyName", GCS_T_UTF16Z),     F("ProductVersion", GCS_T_UTF16Z),
    F("FileId", GCS_T_UTF16Z),          F("ProgramId", GCS_T_UTF16Z),
};
/* SysConfig/BuildInfo: install date (FILETIME: 0 in the x86 file, which
 * TraceEvent shows as 1970 local time), build lab and product name. */
static const gcs_field sysconfig_build_info[] = {
    F("InstallDate", GCS_T_DATETIME), F("BuildLab", GCS_T_UTF16Z), F("ProductName", GCS_T_UTF16Z),
};
/* SysConfig/UnknownVolume: one string, TraceEvent's "Value". */
static const gcs_field sysconfig_unknown_volume[] = {F("Value", GCS_T_UTF16Z)};

static const struct {
    const uint8_t *guid;
    uint8_t opcode;
    const char *provider, *name;
    const gcs_field *fields;
    uint32_t count;
} classic_names[] = {
    {rt_lost_event, 32, KERNEL, "RT_LostEvent/LostEvent", NULL, 0},
    {rt_lost_event, 33, KERNEL, "RT_LostEvent/LostBuffer", NULL, 0},
    {rt_lost_event, 34, KERNEL, "RT_LostEvent/LostFile", NULL, 0},
    {kernel_trace_control, 0, "KernelTraceControl", "ImageID", ktc_image_id, N(ktc_image_id)},
    {kernel_trace_control, 32, "KernelTraceControl", "ImageID/None", NULL, 0},
    {kernel_trace_control, 36, "KernelTraceControl", "ImageID/DbgID_RSDS", ktc_dbg_id,
     N(ktc_dbg_id)},
    {kernel_trace_control, 37, "KernelTraceControl", "ImageID/DbgID_ILRSDS", ktc_dbg_id,
     N(ktc_dbg_id)},
    {kernel_trace_control, 64, "KernelTraceControl", "ImageID/FileVersion", ktc_file_version,
     N(ktc_file_version)},
    {kernel_metadata, 32, "KernelTraceControl", "MetaData/EventInfo", NULL, 0},
    {kernel_metadata, 33, "KernelTraceControl", "MetaData/EventMapInfo", NULL, 0},
    {sys_config, 32, KERNEL, "SysConfig/BuildInfo", sysconfig_build_info,
     N(sysconfig_build_info)},
    {sys_config, 33, KERNEL, "SysConfig/SystemPaths", sysconfig_paths, N(sysconfig_paths)},
    {sys_config, 34, KERNEL, "SysConfig/UnknownVolume", sysconfig_unknown_volume,
     N(sysconfig_unknown_volume)},
    {sys_config, 35, KERNEL, "SysConfig/VolumeMapping", sysconfig_volume_mapping,
     N(sysconfig_volume_mapping)},
    {sys_config, 37, KERNEL, "SysConfig/Opcode(37)", NULL, 0},
};

bool gcs_etl_is_event_info(const uint8_t *guid, uint8_t opcode)
{
    return opcode == 32 && memcmp(guid, kernel_metadata, 16) == 0;
}

bool gcs_etl_classic_describe(const uint8_t *guid, uint8_t opcode, gcs_etl_kernel_desc *out)
{
    for (size_t i = 0; i < sizeof classic_names / sizeof classic_names[0]; i++)
        if (classic_names[i].opcode == opcode && memcmp(classic_names[i].guid, guid, 16) == 0) {
            out->provider = classic_names[i].provider;
            out->name = classic_names[i].name;
            out->fields = classic_names[i].fields;
            out->field_count = classic_names[i].count;
            return true;
        }
    return false;
}
