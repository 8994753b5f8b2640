// legacy: gcload's GC scenarios on .NET Core 3.1 (tests/workloads/gcload needs
// .NET 8). Every line on stdout starts with "legacy: ".
//
// Usage: legacy [SCENARIO[,SCENARIO...]|all] [--scale F]
// Scenarios: gen0 gen1 gen2 loh handles finalizers induced pressure nogc bgc

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

sealed class Node
{
    public Node Left, Right;
    public byte[] Data;
}

sealed class Finalizable
{
    public static int Finalized;
    public readonly byte[] Payload;
    public Finalizable(int size) { Payload = new byte[size]; }
    ~Finalizable() { Interlocked.Increment(ref Finalized); }
}

static class Program
{
    static double Scale = 1.0;
    static object Sink;
    static readonly Random Rng = new Random(1);

    static int Scaled(int n) => Math.Max(1, (int)(n * Scale));

    static void Report(string scenario, Stopwatch sw, int[] before)
    {
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
            "legacy: scenario={0} ms={1:F1} gen0={2} gen1={3} gen2={4}", scenario,
            sw.Elapsed.TotalMilliseconds, GC.CollectionCount(0) - before[0],
            GC.CollectionCount(1) - before[1], GC.CollectionCount(2) - before[2]));
    }

    // Short-lived small objects: gen0 GCs.
    static void Gen0()
    {
        for (int i = 0; i < Scaled(2_000_000); i++)
            Sink = new byte[64 + (i & 255)];
    }

    // A window of survivors that dies after a while: gen1 GCs.
    static void Gen1()
    {
        var window = new object[Scaled(20_000)];
        for (int i = 0; i < Scaled(1_500_000); i++)
            window[i % window.Length] = new byte[128 + (i & 511)];
    }

    // Survivors kept long enough to reach gen2, then dropped.
    static void Gen2()
    {
        var keep = new List<byte[]>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < Scaled(40_000); i++) keep.Add(new byte[256]);
            GC.Collect(1, GCCollectionMode.Forced, true);
            if (round % 2 == 1) keep.Clear();
        }
        GC.Collect(2, GCCollectionMode.Forced, true, true);
    }

    // Large objects (LOH allocations, gen2 GCs for the LOH budget).
    static void Loh()
    {
        var keep = new byte[16][];
        for (int i = 0; i < Scaled(3_000); i++)
            keep[i & 15] = new byte[90_000 + (i & 7) * 10_000];
    }

    // Strong, weak, long-weak and pinned handles; fixed buffers pinned
    // during GCs.
    static unsafe void Handles()
    {
        var handles = new List<GCHandle>();
        for (int i = 0; i < Scaled(2_000); i++) {
            handles.Add(GCHandle.Alloc(new byte[100], GCHandleType.Weak));
            handles.Add(GCHandle.Alloc(new byte[100], GCHandleType.WeakTrackResurrection));
            handles.Add(GCHandle.Alloc(new byte[100], GCHandleType.Normal));
            handles.Add(GCHandle.Alloc(new byte[100], GCHandleType.Pinned));
        }
        var pinnedBuffer = new byte[4096];
        fixed (byte* p = pinnedBuffer) {
            for (int i = 0; i < Scaled(300_000); i++) Sink = new byte[200];
            GC.Collect(0);
            p[0] = 1;
        }
        foreach (var h in handles) h.Free();
        GC.Collect();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void MakeFinalizables()
    {
        for (int i = 0; i < Scaled(20_000); i++) Sink = new Finalizable(64);
    }

    static void Finalizers()
    {
        MakeFinalizables();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine("legacy: finalized=" + Finalizable.Finalized.ToString(CultureInfo.InvariantCulture));
    }

    // Every GC.Collect form the 3.1 API has.
    static void Induced()
    {
        GC.Collect(0);
        GC.Collect(1, GCCollectionMode.Forced);
        GC.Collect(2, GCCollectionMode.Optimized);
        GC.Collect(2, GCCollectionMode.Forced, false);
        GC.WaitForPendingFinalizers();
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(2, GCCollectionMode.Forced, true, true);
    }

    // Unmanaged memory pressure: GCs the runtime triggers for it.
    static void Pressure()
    {
        for (int i = 0; i < Scaled(200); i++) {
            GC.AddMemoryPressure(4 << 20);
            Sink = new byte[1024];
            GC.RemoveMemoryPressure(4 << 20);
        }
    }

    // A no-GC region, ended normally and one that allocation ends.
    static void NoGc()
    {
        if (GC.TryStartNoGCRegion(1 << 20)) {
            for (int i = 0; i < 100; i++) Sink = new byte[100];
            if (GCSettings.LatencyMode == GCLatencyMode.NoGCRegion) GC.EndNoGCRegion();
        }
        if (GC.TryStartNoGCRegion(256 << 10)) {
            try {
                for (int i = 0; i < Scaled(20_000); i++) Sink = new byte[100];
                if (GCSettings.LatencyMode == GCLatencyMode.NoGCRegion) GC.EndNoGCRegion();
            } catch (InvalidOperationException) {
                Console.WriteLine("legacy: nogc region ended by allocation");
            }
        }
    }

    static Node Build(int depth)
    {
        var n = new Node { Data = new byte[32] };
        if (depth > 0) { n.Left = Build(depth - 1); n.Right = Build(depth - 1); }
        return n;
    }

    // A big graph in gen2 and allocation during its marking: background GCs
    // with foreground (gen0/gen1) GCs inside them, where concurrent GC is on.
    static void Bgc()
    {
        var roots = new List<Node>();
        for (int i = 0; i < Scaled(6); i++) roots.Add(Build(16));
        GC.Collect(2, GCCollectionMode.Forced, true);
        for (int round = 0; round < 3; round++) {
            GC.Collect(2, GCCollectionMode.Forced, false);
            var window = new object[4096];
            for (int i = 0; i < Scaled(1_500_000); i++)
                window[i & 4095] = new byte[64 + (i & 127)];
            roots[round % roots.Count] = Build(16);
        }
        GC.KeepAlive(roots);
    }

    static int Main(string[] args)
    {
        string which = "all";
        for (int i = 0; i < args.Length; i++) {
            if (args[i] == "--scale" && i + 1 < args.Length)
                Scale = double.Parse(args[++i], CultureInfo.InvariantCulture);
            else if (args[i].StartsWith("-")) {
                Console.Error.WriteLine("usage: legacy [SCENARIO[,SCENARIO...]|all] [--scale F]");
                return 2;
            } else which = args[i];
        }
        var scenarios = new (string, Action)[] {
            ("gen0", Gen0), ("gen1", Gen1), ("gen2", Gen2), ("loh", Loh), ("handles", Handles),
            ("finalizers", Finalizers), ("induced", Induced), ("pressure", Pressure),
            ("nogc", NoGc), ("bgc", Bgc),
        };
        var wanted = new HashSet<string>(which.Split(','));
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
            "legacy: runtime={0} server={1} concurrent={2} pid={3}", Environment.Version,
            GCSettings.IsServerGC, GCSettings.LatencyMode != GCLatencyMode.Batch,
            Process.GetCurrentProcess().Id));
        int ran = 0;
        foreach (var (name, run) in scenarios) {
            if (which != "all" && !wanted.Contains(name)) continue;
            var before = new[] { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };
            var sw = Stopwatch.StartNew();
            run();
            Report(name, sw, before);
            ran++;
        }
        if (ran == 0) {
            Console.Error.WriteLine("legacy: no scenario named " + which);
            return 2;
        }
        return 0;
    }
}
