// gcload: a workload that makes the .NET GC do (nearly) everything it can do,
// so that EventPipe traces of it exercise every GC event and every GC kind.
//
// Usage:
//   gcload [all|SCENARIO[,SCENARIO...]] [--scale F] [--seed N] [--bgc-nodes N] [--bgc-rounds N]
//   gcload service [--seconds N] [--threads N] [--max-trace-mb N] [--idle-threads N]
//   gcload bench [--seconds N] [--threads N] [--max-trace-mb N] [--pinned N] [--handle-churn N]
//     --pinned N        N pinned GC handles held during the run
//     --handle-churn N  N GCHandle Alloc/Free pairs per 4096 allocations per thread
//   --idle-threads N    (service, bench) N more threads blocked for the whole run: CPU
//                       sampling (SampleProfiler) samples every managed thread, so
//                       they make a stack-heavy trace
//
// Scenarios: gen0 gen1 gen2 loh poh handles finalizers induced pressure bgc objects objectsbgc noregion
// "all" runs every scenario except bench, in the order listed above.
//
// Every machine-readable line on stdout starts with "gcload: ". Nothing else is
// printed on stdout, so `grep '^gcload: '` gives the whole report.

using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace GcLoad;

// ---------------------------------------------------------------------------
// Distinctive types for object-tracking tests. Each carries inline padding so
// that it is large enough to be picked by allocation sampling (AllocationTick
// fires on the object that crosses each ~100 KB allocation boundary, so big
// objects are sampled proportionally more often).
// ---------------------------------------------------------------------------

[InlineArray(64)]
public struct Pad512 { private long _element; }

[InlineArray(12000)]
public struct Pad96K { private long _element; }   // 96,000 bytes: instances go to the LOH

public sealed class KeptToEnd { public int Id; public Pad512 Pad; }
public sealed class DiesYoung { public int Id; public Pad512 Pad; }
public sealed class DiesInGen1 { public int Id; public Pad512 Pad; }
public sealed class DiesInGen2 { public int Id; public Pad512 Pad; }
public sealed class LargeKept { public int Id; public Pad96K Pad; }
public sealed class LargeDies { public int Id; public Pad96K Pad; }
public sealed class WeaklyHeld { public int Id; public Pad512 Pad; }
public sealed class BgcKept { public int Id; public Pad512 Pad; }
public sealed class BgcDies { public int Id; public Pad512 Pad; }
public sealed class BgcLargeKept { public int Id; public Pad96K Pad; }
public sealed class BgcLargeDies { public int Id; public Pad96K Pad; }

public sealed class FinalizedEarly
{
    public static int Finalized;
    public int Id;
    public Pad512 Pad;
    ~FinalizedEarly() { Interlocked.Increment(ref Finalized); }
}

/// <summary>Small finalizable object used by the finalizers/handles scenarios.</summary>
public sealed class Finalizable
{
    public static int Finalized;
    public static int Resurrected;
    public static Finalizable? Zombie;
    public readonly byte[] Payload;
    public bool Resurrect;
    public Finalizable(int size) { Payload = new byte[size]; }
    ~Finalizable()
    {
        Interlocked.Increment(ref Finalized);
        if (Resurrect && Interlocked.Increment(ref Resurrected) == 1)
            Zombie = this; // resurrect exactly one object
    }
}

/// <summary>Node of the big object graph that keeps the BGC marking busy.</summary>
public sealed class Node
{
    public Node? Left, Right;
    public long A, B;
    public object? Payload;
}

public static class Program
{
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;
    static double Scale = 1.0;
    static int Seed = 12345;
    static int BgcNodes = 1_500_000;
    static int BgcRounds = 3;
    static int BenchPinned = 0;
    static int BenchHandleChurn = 0;
    static int IdleThreads = 0;
    static readonly bool ConcurrentEnabled =
        GC.GetConfigurationVariables().TryGetValue("ConcurrentGC", out object? c) && c is bool b && b;
    static readonly Stopwatch Clock = Stopwatch.StartNew();
    static long Sink; // defeats dead-code elimination of allocations

    static readonly Dictionary<string, long> Counters = new();

    static void Out(string line)
    {
        lock (Inv) Console.Out.WriteLine("gcload: " + line);
    }

    static string F(FormattableString s) => s.ToString(Inv);

    static void Count(string key, long n = 1)
    {
        lock (Counters)
        {
            Counters.TryGetValue(key, out long v);
            Counters[key] = v + n;
        }
    }

    static int Scaled(int n) => Math.Max(1, (int)(n * Scale));

    static long LastGcIndex() => GC.GetGCMemoryInfo(GCKind.Any).Index;

    static string GenCounts() =>
        F($"gen0={GC.CollectionCount(0)} gen1={GC.CollectionCount(1)} gen2={GC.CollectionCount(2)}");

    public static int Main(string[] args)
    {
        string scenario = "all";
        double seconds = 10;
        int threads = 2;
        double maxTraceMb = 0;
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            switch (a)
            {
                case "--scale": Scale = double.Parse(args[++i], Inv); break;
                case "--seed": Seed = int.Parse(args[++i], Inv); break;
                case "--seconds": seconds = double.Parse(args[++i], Inv); break;
                case "--threads": threads = int.Parse(args[++i], Inv); break;
                case "--max-trace-mb": maxTraceMb = double.Parse(args[++i], Inv); break;
                case "--bgc-nodes": BgcNodes = int.Parse(args[++i], Inv); break;
                case "--bgc-rounds": BgcRounds = int.Parse(args[++i], Inv); break;
                case "--pinned": BenchPinned = int.Parse(args[++i], Inv); break;
                case "--handle-churn": BenchHandleChurn = int.Parse(args[++i], Inv); break;
                case "--idle-threads": IdleThreads = int.Parse(args[++i], Inv); break;
                case "-h":
                case "--help":
                    Console.Error.WriteLine("usage: gcload [all|bench|SCENARIO[,SCENARIO...]] [--scale F] [--seed N] [--seconds N] [--threads N] [--max-trace-mb N] [--bgc-nodes N] [--bgc-rounds N] [--pinned N] [--handle-churn N] [--idle-threads N]");
                    Console.Error.WriteLine("scenarios: " + string.Join(" ", AllScenarios));
                    return 0;
                default:
                    if (a.StartsWith("--", StringComparison.Ordinal))
                    {
                        Console.Error.WriteLine("gcload: unknown option " + a);
                        return 2;
                    }
                    scenario = a;
                    break;
            }
        }

        PrintEnvironment(scenario);

        string[] list = scenario == "all" ? AllScenarios : scenario.Split(',', StringSplitOptions.RemoveEmptyEntries);
        foreach (string s in list)
        {
            Action? run = s switch
            {
                "gen0" => Gen0,
                "gen1" => Gen1,
                "gen2" => Gen2,
                "loh" => Loh,
                "poh" => Poh,
                "handles" => Handles,
                "finalizers" => Finalizers,
                "induced" => Induced,
                "pressure" => Pressure,
                "bgc" => Bgc,
                "objects" => Objects,
                "objectsbgc" => ObjectsBgc,
                "noregion" => NoGcRegion,
                "bench" => () => Bench(seconds, threads, maxTraceMb),
                "service" => () => Service(seconds, threads, maxTraceMb),
                _ => null,
            };
            if (run == null)
            {
                Console.Error.WriteLine("gcload: unknown scenario " + s);
                return 2;
            }
            RunPhase(s, run);
        }

        PrintSummary();
        return 0;
    }

    static readonly string[] AllScenarios =
        { "gen0", "gen1", "gen2", "loh", "poh", "handles", "finalizers", "induced", "pressure", "bgc", "noregion", "objects" };

    static void PrintEnvironment(string scenario)
    {
        Out(F($"pid={Environment.ProcessId}"));
        Out(F($"runtime version={Environment.Version} framework=\"{RuntimeInformation.FrameworkDescription}\" os=\"{RuntimeInformation.OSDescription}\" arch={RuntimeInformation.ProcessArchitecture}"));
        var cfg = GC.GetConfigurationVariables();
        string Cfg(string k) => cfg.TryGetValue(k, out object? v) ? Convert.ToString(v, Inv) ?? "" : "?";
        Out(F($"gc server={GCSettings.IsServerGC} concurrent={Cfg("ConcurrentGC")} heap_count={Cfg("HeapCount")} latency={GCSettings.LatencyMode} processors={Environment.ProcessorCount}"));
        foreach (var kv in cfg.OrderBy(k => k.Key, StringComparer.Ordinal))
            Out(F($"gc_config {kv.Key}={Convert.ToString(kv.Value, Inv)}"));
        Out(F($"args scenario={scenario} scale={Scale} seed={Seed} bgc_nodes={BgcNodes} bgc_rounds={BgcRounds}"));
    }

    static void RunPhase(string name, Action run)
    {
        long startIndex = LastGcIndex();
        int g0 = GC.CollectionCount(0), g1 = GC.CollectionCount(1), g2 = GC.CollectionCount(2);
        double t0 = Clock.Elapsed.TotalMilliseconds;
        Out(F($"phase_begin name={name} t_ms={t0:F1} last_gc_index={startIndex}"));
        run();
        double t1 = Clock.Elapsed.TotalMilliseconds;
        Out(F($"phase_end name={name} t_ms={t1:F1} last_gc_index={LastGcIndex()} d_gen0={GC.CollectionCount(0) - g0} d_gen1={GC.CollectionCount(1) - g1} d_gen2={GC.CollectionCount(2) - g2}"));
    }

    static void PrintSummary()
    {
        Out("collection_count " + GenCounts());
        var info = GC.GetGCMemoryInfo(GCKind.Any);
        Out(F($"last_gc index={info.Index} generation={info.Generation} compacted={info.Compacted} concurrent={info.Concurrent} pause_pct={info.PauseTimePercentage}"));
        var bg = GC.GetGCMemoryInfo(GCKind.Background);
        Out(F($"last_bgc index={bg.Index} generation={bg.Generation}"));
        Out(F($"total_allocated_bytes={GC.GetTotalAllocatedBytes(true)} total_pause_ms={GC.GetTotalPauseDuration().TotalMilliseconds:F3}"));
        Out(F($"finalizers finalizable_finalized={Finalizable.Finalized} finalizable_resurrected={Finalizable.Resurrected} finalized_early_finalized={FinalizedEarly.Finalized}"));
        foreach (var kv in Counters.OrderBy(k => k.Key, StringComparer.Ordinal))
            Out(F($"count {kv.Key}={kv.Value}"));
        Out(F($"sink={Sink & 0xff}"));
        Out("done");
    }

    // -----------------------------------------------------------------------
    // gen0: short-lived small objects only.
    // -----------------------------------------------------------------------
    static void Gen0()
    {
        var rnd = new Random(Seed);
        int n = Scaled(3_000_000);
        long sum = 0;
        for (int i = 0; i < n; i++)
        {
            switch (i & 3)
            {
                case 0: sum += new byte[16 + rnd.Next(64)].Length; break;
                case 1: sum += new object[4].Length; break;
                case 2: sum += i.ToString(Inv).Length; break;
                default: sum += new Node { A = i }.A; break;
            }
        }
        Sink += sum;
        Count("gen0.small_objects", n);
    }

    // -----------------------------------------------------------------------
    // gen1: medium-lived objects kept in a ring, so they survive a gen0 GC
    // or two and then die in gen1.
    // -----------------------------------------------------------------------
    static void Gen1()
    {
        var rnd = new Random(Seed + 1);
        var ring = new object[60_000];
        int n = Scaled(2_500_000);
        for (int i = 0; i < n; i++)
        {
            ring[rnd.Next(ring.Length)] = new byte[32 + rnd.Next(200)];
            if ((i & 7) == 0) Sink += new object[8].Length; // gen0 garbage
        }
        GC.KeepAlive(ring);
        Count("gen1.ring_objects", n);
    }

    // -----------------------------------------------------------------------
    // gen2: a big retained set churned at random, so objects get to gen2 and
    // die there; natural gen2 (background if concurrent) GCs follow.
    // -----------------------------------------------------------------------
    static void Gen2()
    {
        var rnd = new Random(Seed + 2);
        var keep = new Node[400_000];
        for (int i = 0; i < keep.Length; i++)
            keep[i] = new Node { A = i, Payload = new byte[24] };
        int n = Scaled(3_000_000);
        for (int i = 0; i < n; i++)
        {
            int k = rnd.Next(keep.Length);
            var node = new Node { A = i, Left = keep[rnd.Next(keep.Length)], Payload = new byte[16 + (i & 63)] };
            keep[k] = node;
            if ((i & 1023) == 0) Sink += new byte[4000].Length;
        }
        GC.KeepAlive(keep);
        Count("gen2.churned_nodes", n);
    }

    // -----------------------------------------------------------------------
    // loh: byte arrays above the 85,000-byte threshold, a window of them kept.
    // -----------------------------------------------------------------------
    static void Loh()
    {
        var rnd = new Random(Seed + 3);
        var window = new byte[24][];
        int n = Scaled(1200);
        long bytes = 0;
        for (int i = 0; i < n; i++)
        {
            int size = 85_000 + rnd.Next(i % 10 == 0 ? 2_000_000 : 200_000);
            window[i % window.Length] = new byte[size];
            bytes += size;
        }
        GC.KeepAlive(window);
        Count("loh.arrays", n);
        Count("loh.bytes", bytes);
    }

    // -----------------------------------------------------------------------
    // poh: arrays on the pinned object heap.
    // -----------------------------------------------------------------------
    static void Poh()
    {
        var rnd = new Random(Seed + 4);
        var kept = new List<byte[]>();
        int n = Scaled(4000);
        long bytes = 0;
        for (int i = 0; i < n; i++)
        {
            int size = (i % 3) switch { 0 => 64 + rnd.Next(1000), 1 => 4096 + rnd.Next(30_000), _ => 90_000 + rnd.Next(100_000) };
            byte[] a = GC.AllocateArray<byte>(size, pinned: true);
            bytes += size;
            if (i % 10 == 0) kept.Add(a);
            if (i % 500 == 499) kept.RemoveRange(0, kept.Count / 2);
            Sink += new byte[200].Length; // some SOH garbage in between
        }
        // a few uninitialized pinned arrays too
        for (int i = 0; i < 16; i++)
            kept.Add(GC.AllocateUninitializedArray<byte>(100_000 + i, pinned: true));
        GC.Collect();
        GC.KeepAlive(kept);
        Count("poh.arrays", n + 16);
        Count("poh.bytes", bytes);
        Count("poh.kept_at_end", kept.Count);
    }

    // -----------------------------------------------------------------------
    // handles: pinned, weak, weak-track-resurrection and normal GC handles.
    // -----------------------------------------------------------------------
    static void Handles()
    {
        const int N = 200;
        var pinned = new List<GCHandle>();
        var weak = new List<GCHandle>();
        var weakTr = new List<GCHandle>();
        var normal = new List<GCHandle>();
        var strongForWeak = new List<object>();
        for (int i = 0; i < N; i++)
        {
            pinned.Add(GCHandle.Alloc(new byte[100 + i], GCHandleType.Pinned));
            var o = new byte[64];
            weak.Add(GCHandle.Alloc(o, GCHandleType.Weak));
            if (i % 2 == 0) strongForWeak.Add(o); // half stay reachable
            var f = new Finalizable(32) { Resurrect = i == 0 };
            weakTr.Add(GCHandle.Alloc(f, GCHandleType.WeakTrackResurrection));
            normal.Add(GCHandle.Alloc(new object(), GCHandleType.Normal));
            // garbage around the pinned arrays so the GC has to deal with pins
            for (int j = 0; j < 50; j++) Sink += new byte[100].Length;
        }
        GC.Collect(0);
        // pin via `fixed` on the stack while a GC happens
        unsafe
        {
            byte[] stackPinned = new byte[1000];
            fixed (byte* p = stackPinned)
            {
                for (int j = 0; j < 20000; j++) Sink += new byte[100].Length;
                GC.Collect(1);
                p[0] = 1;
            }
        }
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        int weakAlive = weak.Count(h => h.Target != null);
        int weakTrAlive = weakTr.Count(h => h.Target != null);
        Out(F($"handles pinned={pinned.Count} weak={weak.Count} weak_alive_after_gc={weakAlive} weak_track_resurrection={weakTr.Count} weak_tr_alive_after_gc={weakTrAlive} normal={normal.Count}"));
        // free half of the pinned handles, collect, then free everything
        for (int i = 0; i < pinned.Count; i += 2) pinned[i].Free();
        GC.Collect(0);
        for (int i = 1; i < pinned.Count; i += 2) pinned[i].Free();
        foreach (var h in weak) h.Free();
        foreach (var h in weakTr) h.Free();
        foreach (var h in normal) h.Free();
        Finalizable.Zombie = null;
        GC.KeepAlive(strongForWeak);
        Count("handles.allocated", 4 * N);
    }

    // -----------------------------------------------------------------------
    // finalizers: objects with finalizers, dropped and finalized.
    // -----------------------------------------------------------------------
    static void Finalizers()
    {
        int n = Scaled(20_000);
        for (int i = 0; i < n; i++)
        {
            _ = new Finalizable(16 + (i & 127));
            if ((i & 15) == 0) Sink += new byte[500].Length;
        }
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Out(F($"finalizers allocated={n} finalized_so_far={Finalizable.Finalized}"));
        Count("finalizers.allocated", n);
    }

    // -----------------------------------------------------------------------
    // induced: GC.Collect in every mode.
    // -----------------------------------------------------------------------
    static void Induced()
    {
        void Collect(string what, Action a)
        {
            for (int j = 0; j < 20000; j++) Sink += new byte[64].Length; // something to collect
            long before = LastGcIndex();
            int c0 = GC.CollectionCount(0);
            a();
            long after = LastGcIndex();
            Out(F($"induced {what} gc_index_before={before} gc_index_after={after} collected={(GC.CollectionCount(0) != c0 ? 1 : 0)} {GenCounts()}"));
            Count("induced.calls");
        }

        Collect("call=GC.Collect()", () => GC.Collect());
        Collect("call=GC.Collect(0)", () => GC.Collect(0));
        Collect("call=GC.Collect(1)", () => GC.Collect(1));
        Collect("call=GC.Collect(2,Default)", () => GC.Collect(2, GCCollectionMode.Default));
        Collect("call=GC.Collect(2,Forced)", () => GC.Collect(2, GCCollectionMode.Forced));
        Collect("call=GC.Collect(2,Optimized)", () => GC.Collect(2, GCCollectionMode.Optimized));
        Collect("call=GC.Collect(0,Optimized)", () => GC.Collect(0, GCCollectionMode.Optimized));
        Collect("call=GC.Collect(1,Forced,blocking:false)", () => GC.Collect(1, GCCollectionMode.Forced, blocking: false));
        Collect("call=GC.Collect(2,Forced,blocking:false)", () => { GC.Collect(2, GCCollectionMode.Forced, blocking: false); WaitForBgc(); });
        Collect("call=GC.Collect(2,Default,blocking:false)", () => { GC.Collect(2, GCCollectionMode.Default, blocking: false); WaitForBgc(); });
        Collect("call=GC.Collect(2,Optimized,blocking:false)", () => { GC.Collect(2, GCCollectionMode.Optimized, blocking: false); WaitForBgc(); });
        Collect("call=GC.Collect(2,Forced,blocking:true,compacting:true)", () => GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true));
        Collect("call=GC.Collect(1,Forced,blocking:true,compacting:true)", () => GC.Collect(1, GCCollectionMode.Forced, blocking: true, compacting: true));
        Collect("call=GC.Collect(2,Aggressive,blocking:true,compacting:true)", () => GC.Collect(2, GCCollectionMode.Aggressive, blocking: true, compacting: true));
        // LOH compaction: some LOH garbage between survivors, then CompactOnce.
        var loh = new byte[16][];
        for (int i = 0; i < 64; i++) loh[i % 16] = new byte[100_000 + i * 1000];
        Collect("call=LargeObjectHeapCompactionMode=CompactOnce;GC.Collect()", () =>
        {
            GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect();
        });
        Out(F($"induced loh_compaction_mode_after={GCSettings.LargeObjectHeapCompactionMode}"));
        GC.KeepAlive(loh);
    }

    /// <summary>Wait (bounded) until the background GC started by the last call finished.</summary>
    static void WaitForBgc()
    {
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < 2000)
        {
            // While a BGC runs, the last *completed* GC index lags behind the
            // GC count; GCKind.Background index catches up when it finishes.
            long bg = GC.GetGCMemoryInfo(GCKind.Background).Index;
            long any = GC.GetGCMemoryInfo(GCKind.Any).Index;
            if (bg >= any || GC.CollectionCount(0) == any) break;
            Thread.Sleep(1);
        }
    }

    // -----------------------------------------------------------------------
    // pressure: GC.AddMemoryPressure / RemoveMemoryPressure.
    // -----------------------------------------------------------------------
    static void Pressure()
    {
        // The runtime only induces a GC for memory pressure when the last gen2
        // GC is not too recent (it keeps gen2 GCs under ~20% of the time), so
        // the pressure is added slowly, with some allocation in between.
        const int Steps = 60;
        const long Amount = 16L * 1024 * 1024;
        long total = 0;
        long before = LastGcIndex();
        Thread.Sleep(100);
        for (int i = 0; i < Steps; i++)
        {
            GC.AddMemoryPressure(Amount);
            total += Amount;
            for (int j = 0; j < 2000; j++) Sink += new byte[64].Length;
            Thread.Sleep(5);
        }
        Out(F($"pressure added_bytes={total} add_calls={Steps} gc_index_before={before} gc_index_after={LastGcIndex()} {GenCounts()}"));
        for (int i = 0; i < Steps; i++)
            GC.RemoveMemoryPressure(Amount);
        Out(F($"pressure removed_bytes={total} remove_calls={Steps} gc_index_after={LastGcIndex()} {GenCounts()}"));
        Count("pressure.add_calls", Steps);
        Count("pressure.remove_calls", Steps);
    }

    // -----------------------------------------------------------------------
    // bgc: a big object graph in gen2 (so background marking takes a while),
    // then background GCs started with GC.Collect(2, ..., blocking:false)
    // while several threads allocate hard, which forces foreground gen0/gen1
    // GCs during the BGC.
    // -----------------------------------------------------------------------
    static void Bgc()
    {
        var rnd = new Random(Seed + 5);
        // Not scaled: the graph has to be big enough for the background mark
        // phase to last long enough for foreground GCs to happen during it.
        int nodes = BgcNodes;
        var all = new Node[nodes];
        for (int i = 0; i < nodes; i++)
        {
            var n = new Node { A = i };
            if (i > 0) n.Left = all[rnd.Next(i)];
            if (i > 1) n.Right = all[rnd.Next(i)];
            if ((i & 7) == 0) n.Payload = new byte[40];
            all[i] = n;
        }
        GC.Collect(2, GCCollectionMode.Forced, blocking: true); // get the graph into gen2

        int rounds = BgcRounds;
        int workers = Math.Max(2, Environment.ProcessorCount);
        for (int r = 0; r < rounds; r++)
        {
            long before = LastGcIndex();
            long bgBefore = GC.GetGCMemoryInfo(GCKind.Background).Index;
            int c0 = GC.CollectionCount(0), c1 = GC.CollectionCount(1), c2 = GC.CollectionCount(2);
            using var stop = new CancellationTokenSource();
            var ts = new Thread[workers];
            for (int w = 0; w < workers; w++)
            {
                int seed = Seed + 100 + r * 10 + w;
                ts[w] = new Thread(() => AllocateHard(seed, stop.Token, all)) { IsBackground = true, Name = "bgc-alloc-" + w };
                ts[w].Start();
            }
            Thread.Sleep(20);
            // Mutate the graph so the BGC has dirty cards to revisit.
            GC.Collect(2, GCCollectionMode.Forced, blocking: false);
            var sw = Stopwatch.StartNew();
            // Without concurrent GC the "background" request ran as a blocking GC: no wait.
            while (ConcurrentEnabled && sw.ElapsedMilliseconds < 3000 && GC.GetGCMemoryInfo(GCKind.Background).Index == bgBefore)
            {
                for (int k = 0; k < 1000; k++) all[rnd.Next(nodes)].Payload = new byte[32];
                Thread.Sleep(1);
            }
            Thread.Sleep(20);
            stop.Cancel();
            foreach (var t in ts) t.Join();
            long bgAfter = GC.GetGCMemoryInfo(GCKind.Background).Index;
            Out(F($"bgc round={r} gc_index_before={before} bgc_index={bgAfter} bgc_ms={sw.ElapsedMilliseconds} d_gen0={GC.CollectionCount(0) - c0} d_gen1={GC.CollectionCount(1) - c1} d_gen2={GC.CollectionCount(2) - c2} concurrent={GC.GetGCMemoryInfo(GCKind.Background).Concurrent}"));
            Count("bgc.rounds");
        }
        GC.KeepAlive(all);
    }

    static void AllocateHard(int seed, CancellationToken stop, Node[] graph)
    {
        var rnd = new Random(seed);
        var ring = new object[20_000];
        long n = 0;
        while (!stop.IsCancellationRequested)
        {
            for (int i = 0; i < 1000; i++)
            {
                object o = (i & 3) switch
                {
                    0 => new byte[32 + rnd.Next(256)],
                    1 => new Node { A = n },
                    2 => new object[6],
                    _ => new string('x', 8 + (i & 31)),
                };
                if ((i & 15) == 0) ring[rnd.Next(ring.Length)] = o; // survives a gen0 or two -> gen1 work
                n++;
            }
            if ((n & 0xffff) < 1000) graph[rnd.Next(graph.Length)].Payload = ring[rnd.Next(ring.Length)];
        }
        Count("bgc.allocated_objects", n);
    }

    // -----------------------------------------------------------------------
    // noregion: GC.TryStartNoGCRegion / EndNoGCRegion, and a short
    // SustainedLowLatency period.
    // -----------------------------------------------------------------------
    static void NoGcRegion()
    {
        bool started = false;
        try { started = GC.TryStartNoGCRegion(8 * 1024 * 1024); } catch (Exception e) { Out("noregion error=" + e.GetType().Name); }
        if (started)
        {
            for (int i = 0; i < 10000; i++) Sink += new byte[100].Length;
            try { GC.EndNoGCRegion(); } catch (InvalidOperationException) { Out("noregion end_failed=1"); }
        }
        Out(F($"noregion started={started} {GenCounts()}"));
        var old = GCSettings.LatencyMode;
        GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
        for (int i = 0; i < Scaled(500_000); i++) Sink += new byte[64].Length;
        GCSettings.LatencyMode = old;
        Out(F($"latency sustained_low_latency_done=1 restored={GCSettings.LatencyMode}"));
    }

    // The live objects of arr by generation, as the objects scenarios print them.
    static string GenOf<T>(T[] arr) where T : class
    {
        int[] g = new int[4];
        int alive = 0;
        foreach (var o in arr) if (o != null) { g[Math.Min(3, GC.GetGeneration(o))]++; alive++; }
        return F($"alive={alive} in_gen0={g[0]} in_gen1={g[1]} in_gen2={g[2]} in_gen3plus={g[3]}");
    }

    // -----------------------------------------------------------------------
    // objects: distinctive types with known fates, for object-tracking tests.
    // -----------------------------------------------------------------------
    static void Objects()
    {
        int keptN = 3000, youngN = 30000, gen1N = 3000, gen2N = 3000, largeKeptN = 8, largeDiesN = 8, weakN = 500, finN = 1000, pinN = 10;

        void Gc(string step, Action a)
        {
            a();
            Out(F($"objects gc step={step} gc_index={LastGcIndex()}"));
        }

        // 1. KeptToEnd interleaved with DiesYoung (both in gen0 at first).
        var kept = new KeptToEnd[keptN];
        int ki = 0;
        for (int i = 0; i < youngN; i++)
        {
            var y = new DiesYoung { Id = i };
            Sink += y.Id;
            if (i % (youngN / keptN) == 0 && ki < keptN) kept[ki] = new KeptToEnd { Id = ki++ };
        }
        while (ki < keptN) kept[ki] = new KeptToEnd { Id = ki++ };
        var largeKept = new LargeKept[largeKeptN];
        var largeDies = new LargeDies[largeDiesN];
        for (int i = 0; i < largeKeptN; i++)
        {
            largeKept[i] = new LargeKept { Id = i };
            largeDies[i % largeDiesN] = new LargeDies { Id = i };
        }
        // pin a few KeptToEnd objects with pinned handles (they are blittable)
        var pins = new GCHandle[pinN];
        for (int i = 0; i < pinN; i++) pins[i] = GCHandle.Alloc(kept[i * 97], GCHandleType.Pinned);
        Gc("gen0_young_die", () => GC.Collect(0));
        Out("objects where=after_gen0_gc type=GcLoad.KeptToEnd " + GenOf(kept));

        // 2. DiesInGen1: survive one gen0 GC, then die in a gen1 GC.
        var g1 = new DiesInGen1[gen1N];
        for (int i = 0; i < gen1N; i++) g1[i] = new DiesInGen1 { Id = i };
        Gc("gen0_promote_gen1_objects", () => GC.Collect(0));
        Out("objects where=before_gen1_drop type=GcLoad.DiesInGen1 " + GenOf(g1));
        Array.Clear(g1);
        Gc("gen1_gen1_objects_die", () => GC.Collect(1));

        // 3. DiesInGen2: survive two gen1 GCs (-> gen2), then die in a compacting gen2 GC.
        var g2 = new DiesInGen2[gen2N];
        for (int i = 0; i < gen2N; i++) g2[i] = new DiesInGen2 { Id = i };
        // Induced gen1 GCs do not always promote (the GC may decide against
        // promotion), so collect until they have all reached gen2 (bounded).
        for (int t = 0; t < 6 && g2.Count(o => GC.GetGeneration(o) < 2) > gen2N / 100; t++)
            Gc("gen1_promote_" + t, () => GC.Collect(t < 3 ? 1 : 2));
        Out("objects where=before_gen2_drop type=GcLoad.DiesInGen2 " + GenOf(g2));
        Out("objects where=before_gen2_drop type=GcLoad.KeptToEnd " + GenOf(kept));

        // 4. WeaklyHeld: only weak handles point at them.
        var weak = new GCHandle[weakN];
        for (int i = 0; i < weakN; i++) weak[i] = GCHandle.Alloc(new WeaklyHeld { Id = i }, GCHandleType.Weak);

        // 5. FinalizedEarly: finalizable, dropped at once.
        for (int i = 0; i < finN; i++) _ = new FinalizedEarly { Id = i };

        // drop every other KeptToEnd? No: KeptToEnd all stay. Drop gen2 objects and large ones.
        Array.Clear(g2);
        Array.Clear(largeDies);
        Gc("gen2_compacting_with_loh_compaction", () =>
        {
            GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        });
        GC.WaitForPendingFinalizers();
        Gc("gen2_after_finalizers", () => GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true));
        int weakAlive = weak.Count(h => h.Target != null);
        Out("objects where=end type=GcLoad.KeptToEnd " + GenOf(kept));
        Out("objects where=end type=GcLoad.LargeKept " + GenOf(largeKept));

        Out(F($"kept_alive type=GcLoad.KeptToEnd count={keptN} allocated={keptN} dies=never pinned={pinN}"));
        Out(F($"kept_alive type=GcLoad.LargeKept count={largeKeptN} allocated={largeKeptN} dies=never heap=loh"));
        Out(F($"died type=GcLoad.DiesYoung count={youngN} allocated={youngN} dies=gen0 step=gen0_young_die"));
        Out(F($"died type=GcLoad.DiesInGen1 count={gen1N} allocated={gen1N} dies=gen1 step=gen1_gen1_objects_die"));
        Out(F($"died type=GcLoad.DiesInGen2 count={gen2N} allocated={gen2N} dies=gen2 step=gen2_compacting_with_loh_compaction"));
        Out(F($"died type=GcLoad.LargeDies count={largeDiesN} allocated={largeKeptN} dies=loh step=gen2_compacting_with_loh_compaction"));
        Out(F($"died type=GcLoad.WeaklyHeld count={weakN - weakAlive} allocated={weakN} dies=gen0 weak_alive_at_end={weakAlive}"));
        Out(F($"died type=GcLoad.FinalizedEarly count={finN} allocated={finN} dies=finalized finalized={FinalizedEarly.Finalized}"));

        foreach (var h in weak) h.Free();
        foreach (var h in pins) h.Free();
        GC.KeepAlive(kept);
        GC.KeepAlive(largeKept);
    }

    // -----------------------------------------------------------------------
    // objectsbgc: objects that reach gen2 (and the LOH) and die in a
    // background GC, beside objects kept to the end; nothing else collects
    // gen2 (no blocking gen2 GC after the drop), so a tool that sees these
    // deaths saw them in the background GC.
    // -----------------------------------------------------------------------
    [MethodImpl(MethodImplOptions.NoInlining)]
    static T[] MakeArray<T>(int n, Func<int, T> make)
    {
        var a = new T[n];
        for (int i = 0; i < n; i++) a[i] = make(i);
        return a;
    }

    static void ObjectsBgc()
    {
        int keptN = 2000, diesN = 2000, largeN = 6;
        // Allocated in methods of their own, so that no temporary of this
        // frame keeps one alive after the drop.
        var kept = MakeArray(keptN, i => new BgcKept { Id = i });
        var dies = MakeArray(diesN, i => new BgcDies { Id = i });
        var largeKept = MakeArray(largeN, i => new BgcLargeKept { Id = i });
        var largeDies = MakeArray(largeN, i => new BgcLargeDies { Id = i });
        // Ballast: the runtime runs a small gen2 blocking, whatever asked;
        // 24 MB in few allocations (small-object heap, under the LOH size).
        var ballast = MakeArray(400, _ => new byte[60_000]);
        // Up to gen2 by gen1 GCs (as in `objects`), bounded.
        for (int t = 0; t < 6 && (dies.Count(o => GC.GetGeneration(o) < 2) > diesN / 100 ||
                                  kept.Count(o => GC.GetGeneration(o) < 2) > keptN / 100); t++)
        {
            GC.Collect(1);
            Out(F($"objects gc step=promote_{t} gc_index={LastGcIndex()}"));
        }
        Out("objects where=before_drop type=GcLoad.BgcDies " + GenOf(dies));
        Out("objects where=before_drop type=GcLoad.BgcKept " + GenOf(kept));
        Array.Clear(dies);
        Array.Clear(largeDies);
        // A background GC, and its end awaited (bounded). The request is a
        // wish: with nothing allocating the runtime may run it blocking, so
        // young garbage is allocated meanwhile (it dies in gen0 GCs), and the
        // request is made again until a background GC has run.
        long bgcBefore = GC.GetGCMemoryInfo(GCKind.Background).Index;
        var sw = Stopwatch.StartNew();
        for (int attempt = 0; attempt < 5 && GC.GetGCMemoryInfo(GCKind.Background).Index == bgcBefore; attempt++)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: false);
            var wait = Stopwatch.StartNew();
            while (GC.GetGCMemoryInfo(GCKind.Background).Index == bgcBefore && wait.ElapsedMilliseconds < 1000)
            {
                for (int k = 0; k < 2000; k++) Sink += new byte[64].Length;
                Thread.Sleep(1);
            }
        }
        long bgc = GC.GetGCMemoryInfo(GCKind.Background).Index;
        Out(F($"objects gc step=background_gc gc_index={bgc} background={(bgc != bgcBefore ? 1 : 0)}"));
        Out("objects where=end type=GcLoad.BgcKept " + GenOf(kept));
        Out("objects where=end type=GcLoad.BgcLargeKept " + GenOf(largeKept));
        Out(F($"kept_alive type=GcLoad.BgcKept count={keptN} allocated={keptN} dies=never"));
        Out(F($"kept_alive type=GcLoad.BgcLargeKept count={largeN} allocated={largeN} dies=never heap=loh"));
        Out(F($"died type=GcLoad.BgcDies count={diesN} allocated={diesN} dies=gen2 step=background_gc"));
        Out(F($"died type=GcLoad.BgcLargeDies count={largeN} allocated={largeN} dies=loh step=background_gc"));
        GC.KeepAlive(kept);
        GC.KeepAlive(largeKept);
        GC.KeepAlive(ballast);
    }

    // -----------------------------------------------------------------------
    // service: a request loop like a web service's, for N seconds. Workers
    // allocate per-request garbage and replace entries of a shared cache;
    // entries live long enough to reach gen2 and die there, so gen2 keeps
    // filling and the runtime starts background GCs by itself (nothing is
    // induced) while the workers go on allocating, which makes foreground
    // GCs during them.
    // -----------------------------------------------------------------------
    static void Service(double seconds, int threads, double maxTraceMb = 0)
    {
        using var idle = StartIdleThreads();
        var cache = new Node[Scaled(400_000)];
        for (int i = 0; i < cache.Length; i++) cache[i] = new Node { A = i, Payload = new byte[64] };
        using var stop = new CancellationTokenSource();
        var ts = new Thread[threads];
        long requests = 0;
        for (int w = 0; w < threads; w++)
        {
            int id = w;
            ts[w] = new Thread(() =>
            {
                var rnd = new Random(Seed + 2000 + id);
                long n = 0;
                while (!stop.IsCancellationRequested)
                {
                    // One request: parse (strings), work (arrays), answer (a cache entry).
                    long sum = 0;
                    for (int k = 0; k < 32; k++)
                    {
                        sum += new string('r', 16 + (k & 15)).Length;
                        sum += new byte[64 + rnd.Next(448)].Length;
                        sum += new object[8].Length;
                    }
                    var entry = new Node { A = n, B = sum, Payload = new byte[96 + rnd.Next(160)] };
                    cache[rnd.Next(cache.Length)] = entry;
                    if ((n & 0x3fff) == 0) entry.Payload = new byte[90_000]; // now and then a large object
                    n++;
                }
                Interlocked.Add(ref requests, n);
            }) { IsBackground = true, Name = "service-" + w };
            ts[w].Start();
        }
        var (elapsed, stopReason, traceBytes) = RunUntil(seconds, maxTraceMb);
        stop.Cancel();
        foreach (var t in ts) t.Join();
        if (maxTraceMb > 0)
            Out(F($"service seconds={elapsed:F1} stop_reason={stopReason} trace_bytes_seen={traceBytes}"));
        Count("service.requests", requests);
        GC.KeepAlive(cache);
    }

    /// <summary>IdleThreads threads, each a few frames deep, blocked until
    /// the returned handle is disposed.</summary>
    static IDisposable StartIdleThreads()
    {
        var release = new ManualResetEventSlim(false);
        var ts = new Thread[IdleThreads];
        for (int i = 0; i < ts.Length; i++)
        {
            ts[i] = new Thread(() => IdleFrames(release, 6)) { IsBackground = true, Name = "idle-" + i };
            ts[i].Start();
        }
        return new IdleThreadsHandle(release, ts);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void IdleFrames(ManualResetEventSlim release, int depth)
    {
        if (depth > 0) IdleFrames(release, depth - 1);
        else release.Wait();
    }

    sealed class IdleThreadsHandle(ManualResetEventSlim release, Thread[] threads) : IDisposable
    {
        public void Dispose()
        {
            release.Set();
            foreach (var t in threads) t.Join();
        }
    }

    // -----------------------------------------------------------------------
    // bench: steady mixed allocation on several threads for a while, or until
    // the EventPipe output file reaches a size.
    // -----------------------------------------------------------------------
    /// <summary>Waits until `seconds` have passed or, with maxTraceMb, the
    /// EventPipe output file (DOTNET_EventPipeOutputPath) has reached that
    /// many MiB, whichever comes first.</summary>
    static (double Seconds, string StopReason, long TraceBytes) RunUntil(double seconds, double maxTraceMb)
    {
        string? tracePath = Environment.GetEnvironmentVariable("DOTNET_EventPipeOutputPath");
        if (tracePath != null) tracePath = tracePath.Replace("{pid}", Environment.ProcessId.ToString(Inv));
        var sw = Stopwatch.StartNew();
        long traceBytes = 0;
        while (sw.Elapsed.TotalSeconds < seconds)
        {
            Thread.Sleep(100);
            if (maxTraceMb > 0 && tracePath != null)
            {
                try { traceBytes = new FileInfo(tracePath).Length; } catch (IOException) { }
                if (traceBytes >= maxTraceMb * 1024 * 1024) return (sw.Elapsed.TotalSeconds, "max_trace_mb", traceBytes);
            }
        }
        return (sw.Elapsed.TotalSeconds, "seconds", traceBytes);
    }

    static void Bench(double seconds, int threads, double maxTraceMb)
    {
        using var stop = new CancellationTokenSource();
        var keep = new Node[200_000];
        for (int i = 0; i < keep.Length; i++) keep[i] = new Node { A = i };
        // Pinned handles: every GC reports each pinned object (PinObjectAtGCTime,
        // Verbose) and its pinned plug (private PinPlugAtGCTime), which makes a
        // trace grow fast for large-trace benchmarks.
        var pins = new GCHandle[BenchPinned];
        for (int i = 0; i < pins.Length; i++) pins[i] = GCHandle.Alloc(new byte[32 + (i & 63)], GCHandleType.Pinned);
        var ts = new Thread[threads];
        long[] allocs = new long[threads];
        for (int w = 0; w < threads; w++)
        {
            int id = w;
            ts[w] = new Thread(() =>
            {
                var rnd = new Random(Seed + 1000 + id);
                long n = 0;
                var ring = new object[50_000];
                while (!stop.IsCancellationRequested)
                {
                    for (int i = 0; i < 4096; i++, n++)
                    {
                        object o = (i & 7) switch
                        {
                            0 => new byte[16 + rnd.Next(512)],
                            1 => new Node { A = n },
                            2 => new object[4 + (i & 15)],
                            3 => new KeptToEnd { Id = i },
                            4 => new DiesYoung { Id = i },
                            5 => new string('b', 4 + (i & 63)),
                            6 => new int[8 + (i & 31)],
                            _ => new DiesInGen1 { Id = i },
                        };
                        if ((i & 31) == 0) ring[rnd.Next(ring.Length)] = o;
                        if ((i & 1023) == 0) keep[rnd.Next(keep.Length)] = new Node { A = n, Payload = o };
                    }
                    if ((n & 0x3ffff) < 4096) ring[0] = new byte[100_000 + rnd.Next(100_000)]; // some LOH
                    // GC handle churn (SetGCHandle/DestroyGCHandle events with keyword 0x2):
                    // the knob that makes a large trace grow at a chosen rate.
                    for (int h = 0; h < BenchHandleChurn; h++)
                    {
                        var gh = GCHandle.Alloc(ring[h % ring.Length], (h & 1) == 0 ? GCHandleType.Weak : GCHandleType.Normal);
                        gh.Free();
                    }
                }
                allocs[id] = n;
            }) { IsBackground = true, Name = "bench-" + w };
            ts[w].Start();
        }
        var (elapsed, stopReason, traceBytes) = RunUntil(seconds, maxTraceMb);
        stop.Cancel();
        foreach (var t in ts) t.Join();
        GC.KeepAlive(keep);
        foreach (var h in pins) h.Free();
        Out(F($"bench seconds={elapsed:F1} threads={threads} pinned={pins.Length} handle_churn={BenchHandleChurn} objects={allocs.Sum()} stop_reason={stopReason} trace_bytes_seen={traceBytes}"));
        Count("bench.objects", allocs.Sum());
    }
}
