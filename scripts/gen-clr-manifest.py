#!/usr/bin/env python3
"""
gen-clr-manifest.py - dev-time generator of src/decode/clr_manifest_table.c.

The .NET runtime writes the events of its native providers into EventPipe
traces with an empty name and no field descriptions; their layouts live only
in the runtime's ETW manifest (dotnet/runtime src/coreclr/vm/ClrEtwAll.man).
This script turns that manifest into a C table: for every event of every
version of the runtime providers, its id, version, level, keywords, opcode,
the display name TraceEvent gives it ("GC/Start"), and its fields in order
with types, repeat rules, hex display and value/bit maps.

Usage:
    scripts/gen-clr-manifest.py [--source TEXT] [--supplement PART.man] \
        MANIFEST.man [MORE.man ...] \
        > src/decode/clr_manifest_table.c

Later manifests override earlier ones event by event (same provider, id and
version), template by template and map by map, so a newer manifest, or a
partial one holding only newer events, can be laid over an older one.
Manifests given with --supplement are read last and only fill gaps: they add
events, templates, maps, tasks, opcodes and keywords the other manifests do
not define, and never replace one (for events newer than the manifest at hand).
--source is copied into the header comment (say which manifest commits).

Only python3's standard library is needed; make never runs this.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET

PROVIDERS = [
    "Microsoft-Windows-DotNETRuntime",
    "Microsoft-Windows-DotNETRuntimeRundown",
    "Microsoft-Windows-DotNETRuntimePrivate",
]

# Standard ETW opcodes (winmeta.xml) and their display names in TraceEvent.
WIN_OPCODES = {
    "win:Info": (0, "Info"),
    "win:Start": (1, "Start"),
    "win:Stop": (2, "Stop"),
    "win:DC_Start": (3, "DCStart"),
    "win:DC_Stop": (4, "DCStop"),
    "win:Extension": (5, "Extension"),
    "win:Reply": (6, "Reply"),
    "win:Resume": (7, "Resume"),
    "win:Suspend": (8, "Suspend"),
    "win:Send": (9, "Send"),
    "win:Receive": (240, "Receive"),
}

LEVELS = {
    "win:LogAlways": 0,
    "win:Critical": 1,
    "win:Error": 2,
    "win:Warning": 3,
    "win:Informational": 4,
    "win:Verbose": 5,
}

IN_TYPES = {
    "win:UInt8": "GCS_T_U8",
    "win:Int8": "GCS_T_I8",
    "win:UInt16": "GCS_T_U16",
    "win:Int16": "GCS_T_I16",
    "win:UInt32": "GCS_T_U32",
    "win:Int32": "GCS_T_I32",
    "win:HexInt32": "GCS_T_U32",
    "win:UInt64": "GCS_T_U64",
    "win:Int64": "GCS_T_I64",
    "win:HexInt64": "GCS_T_U64",
    "win:Pointer": "GCS_T_POINTER",
    "win:UnicodeString": "GCS_T_UTF16Z",
    "win:AnsiString": "GCS_T_ANSIZ",
    "win:Boolean": "GCS_T_BOOL32",
    "win:GUID": "GCS_T_GUID",
    "win:Double": "GCS_T_F64",
    "win:Float": "GCS_T_F32",
    "win:Binary": "GCS_T_BINARY",
    "win:FILETIME": "GCS_T_DATETIME",
}

# Where TraceEvent's ClrTraceEventParser / ClrPrivateTraceEventParser name an
# event differently from the manifest's task and opcode messages, its name
# wins (checked against microsoft/perfview, see docs/decode.md). Keys are
# (provider, event id); values are "Task/Opcode".
TRACEEVENT_NAMES = {
    # TraceEvent names each GCDynamicEvent after the Name in its payload
    # ("GC/CommittedUsage"); unknown names show as GC/DynamicTraceEvent.
    ("Microsoft-Windows-DotNETRuntime", 39): "GC/DynamicTraceEvent",
    # TraceEvent registers 202 both as "GC/Mark" and "GC/MarkWithType"; its
    # dumps (gcevents.etl.baseline.txt) show the latter.
    ("Microsoft-Windows-DotNETRuntime", 202): "GC/MarkWithType",
    ("Microsoft-Windows-DotNETRuntime", 16): "GC/BulkRootEdge",
    ("Microsoft-Windows-DotNETRuntime", 17): "GC/BulkRootConditionalWeakTableElementEdge",
    ("Microsoft-Windows-DotNETRuntime", 18): "GC/BulkNode",
    ("Microsoft-Windows-DotNETRuntime", 19): "GC/BulkEdge",
    ("Microsoft-Windows-DotNETRuntime", 20): "GC/SampledObjectAllocation",
    ("Microsoft-Windows-DotNETRuntime", 21): "GC/BulkSurvivingObjectRanges",
    ("Microsoft-Windows-DotNETRuntime", 22): "GC/BulkMovedObjectRanges",
    ("Microsoft-Windows-DotNETRuntime", 23): "GC/GenerationRange",
    ("Microsoft-Windows-DotNETRuntime", 32): "GC/SampledObjectAllocation",
    ("Microsoft-Windows-DotNETRuntime", 36): "GC/BulkRootCCW",
    ("Microsoft-Windows-DotNETRuntime", 37): "GC/BulkRCW",
    ("Microsoft-Windows-DotNETRuntime", 38): "GC/BulkRootStaticVar",
    ("Microsoft-Windows-DotNETRuntime", 90): "Contention/LockCreated",
    ("Microsoft-Windows-DotNETRuntime", 136): "Method/DCStopCompleteV2",
    ("Microsoft-Windows-DotNETRuntime", 159): "Method/R2RGetEntryPoint",
    ("Microsoft-Windows-DotNETRuntime", 160): "Method/R2RGetEntryPointStart",
    ("Microsoft-Windows-DotNETRuntime", 186): "Method/InliningFailedAnsi",
    ("Microsoft-Windows-DotNETRuntime", 190): "Method/ILToNativeMap",
    ("Microsoft-Windows-DotNETRuntime", 203): "GC/Join",
    ("Microsoft-Windows-DotNETRuntime", 206): "GC/GenAwareBegin",
    ("Microsoft-Windows-DotNETRuntime", 207): "GC/GenAwareEnd",
    ("Microsoft-Windows-DotNETRuntime", 208): "GC/LOHCompact",
    ("Microsoft-Windows-DotNETRuntime", 209): "GC/FitBucketInfo",
    ("Microsoft-Windows-DotNETRuntime", 283): "TieredCompilation/BackgroundJitStart",
    ("Microsoft-Windows-DotNETRuntime", 284): "TieredCompilation/BackgroundJitStop",
    ("Microsoft-Windows-DotNETRuntime", 298): "JitInstrumentationDataVerbose/InstrumentationData",
    ("Microsoft-Windows-DotNETRuntimePrivate", 191): "FailFast",
    ("Microsoft-Windows-DotNETRuntimePrivate", 193): "GC/CCWRefCountChangeAnsi",
    ("Microsoft-Windows-DotNETRuntimePrivate", 195): "GC/DestroyGCHandle",
    ("Microsoft-Windows-DotNETRuntimePrivate", 310): "LoaderHeap/AllocRequest",
    ("Microsoft-Windows-DotNETRuntimeRundown", 10): "GC/SettingsRundown",
    ("Microsoft-Windows-DotNETRuntimeRundown", 149): "Method/ILToNativeMapDCStart",
    ("Microsoft-Windows-DotNETRuntimeRundown", 150): "Method/ILToNativeMapDCStop",
    ("Microsoft-Windows-DotNETRuntimeRundown", 280): "TieredCompilationRundown/SettingsDCStart",
    ("Microsoft-Windows-DotNETRuntimeRundown", 300): "ExecutionCheckpointRundown/ExecutionCheckpointDCEnd",
}

# Value maps whose entries TraceEvent names differently from the manifest's
# messages, or extends with values newer runtimes write (its enums GCReason
# and AssemblyFlags in ClrTraceEventParser.cs). Replaces the whole map.
TRACEEVENT_MAPS = {
    "GCReasonMap": (False, [
        (0x0, "AllocSmall"), (0x1, "Induced"), (0x2, "LowMemory"), (0x3, "Empty"),
        (0x4, "AllocLarge"), (0x5, "OutOfSpaceSOH"), (0x6, "OutOfSpaceLOH"),
        (0x7, "InducedNotForced"), (0x8, "Internal"), (0x9, "InducedLowMemory"),
        (0xa, "InducedCompacting"), (0xb, "LowMemoryHost"), (0xc, "PMFullGC"),
        (0xd, "LowMemoryHostBlocking")]),
    # The manifest's string for 3 is "PinnedHeap"; TraceEvent's GCSegmentType
    # enum (and this table before the current manifest) says PinnedObjectHeap.
    "GCSegmentTypeMap": (False, [
        (0x0, "SmallObjectHeap"), (0x1, "LargeObjectHeap"), (0x2, "ReadOnlyHeap"),
        (0x3, "PinnedObjectHeap")]),
    "AssemblyFlagsMap": (True, [
        (0x1, "DomainNeutral"), (0x2, "Dynamic"), (0x4, "Native"), (0x8, "Collectible"),
        (0x10, "ReadyToRun")]),
}

# The runtime writes some struct arrays as raw C structs, with the compiler's
# padding, which the manifest does not show (TraceEvent's parsers read them
# at padded offsets). (template, struct) -> {field: alignment}: before that
# field, skip to a multiple of the alignment from the element's start
# (0 = the trace's pointer size). Emitted as GCS_T_NONE / GCS_REPEAT_FIXED
# padding fields, which the payload walker skips silently.
STRUCT_PADDING = {
    ("GCFitBucketInfo", "Values"): {"Count": 4},
    ("GCLOHCompact", "Values"): {"TotalRefs": 0},
}


def add_padding(tid, fields):
    for f in fields:
        if f["children"] is None:
            continue
        pads = STRUCT_PADDING.get((tid, f["name"]))
        if not pads:
            continue
        out = []
        for c in f["children"]:
            if c["name"] in pads:
                out.append({"name": None, "map": None, "hex": False, "type": "GCS_T_NONE",
                            "repeat": "GCS_REPEAT_FIXED", "repeat_arg": pads[c["name"]],
                            "children": None, "count_ref": None, "length_ref": None})
            out.append(c)
        # count= indexes shift with the inserted padding fields.
        for c in out:
            if c["repeat"] == "GCS_REPEAT_COUNT_FIELD":
                target = [i for i, x in enumerate(out) if x["name"] == c["count_ref"] or x["name"] == c["length_ref"]]
                c["repeat_arg"] = target[0]
        f["children"] = out


def local(tag):
    return tag.rsplit("}", 1)[-1]


def children(elem, name):
    return [c for c in elem if local(c.tag) == name]


def child(elem, name):
    for c in elem:
        if local(c.tag) == name:
            return c
    return None


class Provider:
    def __init__(self, name):
        self.name = name
        self.keywords = {}    # name -> mask
        self.tasks = {}       # name -> (value, message)
        self.opcodes = {}     # (task name or None, opcode name) -> (value, message)
        self.maps = {}        # name -> (is_bitmap, [(value, message)])
        self.templates = {}   # tid -> [field dict]
        self.events = {}      # (id, version) -> dict


def message(strings, ref, fallback):
    if ref is None:
        return fallback
    m = re.fullmatch(r"\$\(string\.(.+)\)", ref.strip())
    if not m:
        return ref
    return strings.get(m.group(1), fallback)


def parse_fields(elem, strings, where):
    fields = []
    for c in elem:
        kind = local(c.tag)
        if kind not in ("data", "struct"):
            continue
        f = {"name": c.get("name"), "map": c.get("map"), "hex": False,
             "repeat": "GCS_REPEAT_ONE", "repeat_arg": 0, "children": None,
             "count_ref": None, "length_ref": None}
        if kind == "struct":
            f["type"] = "GCS_T_STRUCT"
            f["children"] = parse_fields(c, strings, where + "." + f["name"])
        else:
            in_type = c.get("inType")
            if in_type not in IN_TYPES:
                sys.exit("%s.%s: unknown inType %s" % (where, f["name"], in_type))
            f["type"] = IN_TYPES[in_type]
            out_type = c.get("outType") or ""
            if in_type in ("win:HexInt32", "win:HexInt64") or out_type.startswith("win:HexInt"):
                f["hex"] = True
            if in_type == "win:Pointer":
                f["hex"] = True  # TraceEvent prints addresses as 0x...
            length = c.get("length")
            if in_type == "win:Binary":
                if length is None:
                    sys.exit("%s.%s: win:Binary without length" % (where, f["name"]))
                f["length_ref"] = length
            elif length is not None:
                sys.exit("%s.%s: length= on %s is not supported" % (where, f["name"], in_type))
        count = c.get("count")
        if count is not None:
            f["count_ref"] = count
        fields.append(f)
    # Resolve count= / length= against earlier siblings.
    for i, f in enumerate(fields):
        ref = f["count_ref"] or f["length_ref"]
        if f["count_ref"] and f["length_ref"]:
            sys.exit("%s.%s: both count and length" % (where, f["name"]))
        if ref is None:
            continue
        if ref.isdigit():
            f["repeat"] = "GCS_REPEAT_FIXED"
            f["repeat_arg"] = int(ref)
        else:
            idx = [j for j in range(i) if fields[j]["name"] == ref]
            if not idx:
                sys.exit("%s.%s: count field %s not found before it" % (where, f["name"], ref))
            f["repeat"] = "GCS_REPEAT_COUNT_FIELD"
            f["repeat_arg"] = idx[-1]
    return fields


def load(path, providers, fill_only=False):
    # fill_only: a supplement adds what is missing and replaces nothing.
    def put(d, k, v):
        if not (fill_only and k in d):
            d[k] = v

    tree = ET.parse(path)
    root = tree.getroot()
    strings = {}
    for st in root.iter():
        if local(st.tag) == "string" and st.get("id") is not None:
            strings[st.get("id")] = st.get("value")
    for pe in root.iter():
        if local(pe.tag) != "provider":
            continue
        name = pe.get("name")
        if name not in PROVIDERS:
            continue
        p = providers.setdefault(name, Provider(name))
        kws = child(pe, "keywords")
        if kws is not None:
            for k in children(kws, "keyword"):
                put(p.keywords, k.get("name"), int(k.get("mask"), 0))
        tasks = child(pe, "tasks")
        if tasks is not None:
            for t in children(tasks, "task"):
                tname = t.get("name")
                put(p.tasks, tname, (int(t.get("value"), 0), message(strings, t.get("message"), tname)))
                ops = child(t, "opcodes")
                if ops is not None:
                    for o in children(ops, "opcode"):
                        put(p.opcodes, (tname, o.get("name")), (
                            int(o.get("value"), 0), message(strings, o.get("message"), o.get("name"))))
        ops = child(pe, "opcodes")
        if ops is not None:
            for o in children(ops, "opcode"):
                put(p.opcodes, (None, o.get("name")), (
                    int(o.get("value"), 0), message(strings, o.get("message"), o.get("name"))))
        maps = child(pe, "maps")
        if maps is not None:
            for m in maps:
                kind = local(m.tag)
                if kind not in ("valueMap", "bitMap"):
                    continue
                entries = [(int(e.get("value").strip(), 0), message(strings, e.get("message"), e.get("value")))
                           for e in children(m, "map")]
                put(p.maps, m.get("name"), (kind == "bitMap", entries))
        temps = child(pe, "templates")
        if temps is not None:
            for t in children(temps, "template"):
                tid = t.get("tid")
                if fill_only and tid in p.templates:
                    continue
                p.templates[tid] = parse_fields(t, strings, name + ":" + tid)
                add_padding(tid, p.templates[tid])
        evs = child(pe, "events")
        if evs is not None:
            for e in children(evs, "event"):
                eid = int(e.get("value"), 0)
                ver = int(e.get("version") or "0", 0)
                if fill_only and (eid, ver) in p.events:
                    continue
                p.events[(eid, ver)] = {
                    "id": eid, "version": ver,
                    "level": e.get("level"), "keywords": e.get("keywords") or "",
                    "opcode": e.get("opcode"), "task": e.get("task"),
                    "template": e.get("template"), "symbol": e.get("symbol"),
                }


def traceevent_style(name):
    # TraceEvent's parser generator turns Begin/End opcode names into Start/Stop.
    name = re.sub(r"Begin$", "Start", name)
    name = re.sub(r"End$", "Stop", name)
    return name


def display_names(p, ev):
    task = ev["task"]
    if task is not None and task in p.tasks:
        task_value, task_name = p.tasks[task]
    else:
        task_value, task_name = 0, None
    op = ev["opcode"]
    if op is None:
        op_value, op_name = 0, None
    elif op in WIN_OPCODES:
        op_value, op_name = WIN_OPCODES[op]
    elif (task, op) in p.opcodes:
        op_value, op_name = p.opcodes[(task, op)]
    elif (None, op) in p.opcodes:
        op_value, op_name = p.opcodes[(None, op)]
    else:
        sys.exit("%s event %d: unknown opcode %s" % (p.name, ev["id"], op))
    if task_name is None:
        task_name = ev["symbol"] or "EventID(%d)" % ev["id"]
    if op_name is not None:
        op_name = traceevent_style(op_name)
    if op_value == 0 or op_name is None:
        full = task_name
    else:
        full = task_name + "/" + op_name
    override = TRACEEVENT_NAMES.get((p.name, ev["id"]))
    if override is not None:
        full = override
        task_name, _, op_name = override.partition("/")
    return task_name, op_name or "", op_value, full


def c_str(s):
    if s is None:
        return "NULL"
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ident(s):
    return re.sub(r"[^A-Za-z0-9_]", "_", s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default="", help="manifest provenance for the header comment")
    ap.add_argument("--supplement", action="append", default=[],
                    help="partial manifest that only adds what the others lack")
    ap.add_argument("manifests", nargs="+")
    args = ap.parse_args()
    providers = {}
    for path in args.manifests:
        load(path, providers)
    for path in args.supplement:
        load(path, providers, fill_only=True)

    out = []
    w = out.append
    w("/*")
    w(" * clr_manifest_table.c - GENERATED by scripts/gen-clr-manifest.py; do not edit.")
    w(" *")
    w(" * The runtime providers' events (ids, versions, TraceEvent display names,")
    w(" * payload fields, value and bit maps), taken from the .NET runtime's ETW")
    w(" * manifest ClrEtwAll.man. Regenerate with:")
    w(" *   python3 scripts/gen-clr-manifest.py --source '...' [--supplement part.man] \\")
    w(" *       ClrEtwAll.man [newer.man] \\")
    w(" *       > src/decode/clr_manifest_table.c")
    if args.source:
        for line in args.source.split("\n"):
            w(" * Source: " + line)
    w(" */")
    w('#include "decode/manifest.h"')
    w("")

    # Maps: one set per provider name space, deduplicated by name (the same
    # map name means the same map in all three providers).
    maps = {}
    for pname in PROVIDERS:
        p = providers.get(pname)
        if p is None:
            continue
        for mname, m in p.maps.items():
            if mname not in maps:
                maps[mname] = m
            elif maps[mname] != m:
                # Different providers may differ: keep the richer one.
                if len(m[1]) > len(maps[mname][1]):
                    maps[mname] = m
    maps.update(TRACEEVENT_MAPS)
    for mname in sorted(maps):
        is_bit, entries = maps[mname]
        w("static const gcs_map_entry map_%s[] = {" % ident(mname))
        for v, msg in sorted(entries):
            w("    {0x%xu, %s}," % (v, c_str(msg)))
        w("};")
    w("")
    w("const gcs_builtin_map gcs_builtin_maps[] = {")
    for mname in sorted(maps):
        is_bit, entries = maps[mname]
        w("    {%s, %s, map_%s, %d}," % (c_str(mname), "true" if is_bit else "false",
                                         ident(mname), len(entries)))
    w("};")
    w("const size_t gcs_builtin_map_count = sizeof gcs_builtin_maps / sizeof gcs_builtin_maps[0];")
    w("")

    # Templates -> field arrays.
    counter = [0]

    def emit_fields(fields, base):
        # Children first (C needs them declared before use).
        child_names = []
        for f in fields:
            if f["children"] is not None:
                child_names.append(emit_fields(f["children"], base + "_" + ident(f["name"])))
            else:
                child_names.append(None)
        counter[0] += 1
        arr = "fields_%s" % base
        w("static const gcs_field %s[] = {" % arr)
        for f, cn in zip(fields, child_names):
            mp = f["map"]
            if mp is not None and mp not in maps:
                mp = None
            w("    {%s, %s, %s, %d, %s, %d, %s, %s}," % (
                c_str(f["name"]), f["type"], f["repeat"], f["repeat_arg"],
                cn if cn else "NULL", len(f["children"]) if f["children"] else 0,
                c_str(mp), "true" if f["hex"] else "false"))
        w("};")
        return arr

    template_arrays = {}
    prov_index = {n: i for i, n in enumerate(PROVIDERS)}
    for pname in PROVIDERS:
        p = providers.get(pname)
        if p is None:
            continue
        used = sorted({ev["template"] for ev in p.events.values() if ev["template"]})
        for tid in used:
            if tid not in p.templates:
                sys.exit("%s: template %s missing" % (pname, tid))
            fields = p.templates[tid]
            if not fields:
                template_arrays[(pname, tid)] = (None, 0)
                continue
            arr = emit_fields(fields, "p%d_%s" % (prov_index[pname], ident(tid)))
            template_arrays[(pname, tid)] = (arr, len(fields))
    w("")

    w("const gcs_builtin_event gcs_builtin_events[] = {")
    for pname in PROVIDERS:
        p = providers.get(pname)
        if p is None:
            continue
        for key in sorted(p.events):
            ev = p.events[key]
            task_name, op_name, op_value, full = display_names(p, ev)
            kw = 0
            for k in ev["keywords"].split():
                if k not in p.keywords:
                    sys.exit("%s event %d: unknown keyword %s" % (pname, ev["id"], k))
                kw |= p.keywords[k]
            level = LEVELS.get(ev["level"], 4 if ev["level"] is None else None)
            if level is None:
                sys.exit("%s event %d: unknown level %s" % (pname, ev["id"], ev["level"]))
            arr, n = (None, 0)
            if ev["template"]:
                arr, n = template_arrays[(pname, ev["template"])]
            w("    {%d, %du, %du, 0x%xu, %du, %du, %s, %s, %s, %s, %d}," % (
                prov_index[pname], ev["id"], ev["version"], kw, level, op_value,
                c_str(task_name), c_str(op_name), c_str(full), arr if arr else "NULL", n))
    w("};")
    w("const size_t gcs_builtin_event_count = sizeof gcs_builtin_events / sizeof gcs_builtin_events[0];")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
