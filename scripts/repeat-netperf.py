#!/usr/bin/env python3
"""Builds a large netperf V3 trace by repeating the event blocks of a real one.

    scripts/repeat-netperf.py IN.netperf OUT.netperf SIZE_MB

No runtime writes netperf any more (.NET Core 2.x did): the bench corpus gets
its netperf V3 shape from a real .NET Core 2.1 trace, whose EventBlock
objects are written again and again, each copy's timestamps moved past the
previous copy's last one (so the events stay in time order, as a netperf
writer leaves them), until the output reaches SIZE_MB MiB. The structure
is the input's: the Trace object, EventBlocks (with each block's padding
to a 4-byte file offset recomputed for its new place), the end tag.
Metadata events (MetadataId 0) stay in the first copy only: the later
copies' events use the ids it defined (TraceEvent refuses a metadata id
defined twice); a block left empty by that is left out.
"""
import struct
import sys

HEAD_EVENT = 56  # EventSize .. PayloadSize


def objects(data):
    """Yields (kind, raw bytes) of the top-level objects after the magic."""
    at = 24
    while at < len(data):
        if data[at] == 1:  # NullReference: end of stream
            yield "end", data[at:]
            return
        assert data[at] == 4 and data[at + 1] == 4, "BeginObject expected at %d" % at
        name_len = struct.unpack_from("<I", data, at + 11)[0]
        name = data[at + 15:at + 15 + name_len].decode()
        head = 15 + name_len + 1  # the type's EndObject
        if name == "Trace":
            total = head + 48 + 1
            yield "trace", data[at:at + total]
            at += total
            continue
        size = struct.unpack_from("<I", data, at + head)[0]
        body_at = at + head + 4
        pad = (4 - body_at % 4) % 4
        body = data[body_at + pad:body_at + pad + size]
        assert data[body_at + pad + size] == 6, "EndObject expected"
        yield name, (data[at:at + head], body)
        at = body_at + pad + size + 1


def shifted(body, delta):
    """The block's events but metadata, every timestamp moved by delta."""
    out = bytearray()
    at = 0
    while at < len(body):
        size, metadata_id = struct.unpack_from("<II", body, at)
        event = bytearray(body[at:at + 4 + size])
        at += 4 + size
        if metadata_id == 0:
            continue
        ts = struct.unpack_from("<q", event, 12)[0]
        struct.pack_into("<q", event, 12, ts + delta)
        out += event
    assert at == len(body)
    return bytes(out)


def span(body):
    lo, hi = None, None
    at = 0
    while at < len(body):
        size = struct.unpack_from("<I", body, at)[0]
        ts = struct.unpack_from("<q", body, at + 12)[0]
        lo = ts if lo is None or ts < lo else lo
        hi = ts if hi is None or ts > hi else hi
        at += 4 + size
    return lo, hi


def main():
    src, dst, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    data = open(src, "rb").read()
    assert data[:24] == b"\x14\x00\x00\x00!FastSerialization.1"
    trace, blocks, end = None, [], None
    for kind, raw in objects(data):
        if kind == "trace":
            trace = raw
        elif kind == "end":
            end = raw
        else:
            blocks.append(raw)
    lo = min(span(b)[0] for _, b in blocks)
    hi = max(span(b)[1] for _, b in blocks)
    step = hi - lo + 1
    limit = int(size_mb * 1048576)
    with open(dst, "wb") as f:
        f.write(data[:24])
        f.write(trace)
        written = 24 + len(trace)
        copy = 0
        while written < limit:
            for head, body in blocks:
                if copy:
                    body = shifted(body, copy * step)
                    if not body:
                        continue
                f.write(head)
                f.write(struct.pack("<I", len(body)))
                pad = (4 - (written + len(head) + 4) % 4) % 4
                f.write(b"\0" * pad)
                f.write(body)
                f.write(b"\x06")
                written += len(head) + 4 + pad + len(body) + 1
            copy += 1
        f.write(end)
    print("repeat-netperf: %s: %d copies of %d blocks, %d bytes" % (dst, copy, len(blocks), written + len(end)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
