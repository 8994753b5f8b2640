// The workload of `gcscope profile`'s checks (tests/cli/profile_exact.sh,
// scripts/bench-profiler.sh). Modes:
//
//   exact        objects of known types with known fates, each fate its own
//                type; prints one "expect" line per type: how many were
//                allocated, died in a GC condemning gen 0/1/2, died while in
//                gen2/LOH/POH, are alive at the end. Every GC that decides a
//                fate is induced (GC.Collect), so the account is exact.
//   churn N      N small objects, a window of 10 000 kept alive (bench):
//                prints the elapsed ms.
//   live N R     N objects kept alive through R compacting gen-2 GCs (bench).
//   oom          allocates until OutOfMemoryException, catches it, exits 0.
//   threads T N  T threads allocating N objects each (profiler under contention).
using System.Diagnostics;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace ProfileLoad;

sealed class DiesYoung { public long A; }
sealed class SurvivesOneGC { public long A; }
sealed class Gen2ThenDies { public long A, B; }
sealed class LivesToEnd { public int A; }
sealed class CompactSurvivor { public long A; }
sealed class NonCompactDies { public long A; }
sealed class ChurnItem { public long A; }
// Nested types: the runtime (and TraceEvent) name them Outer+Inner.
sealed class Outer { public sealed class Inner { public long A; public sealed class Deep { public int A; } } }
sealed class LiveItem { public long A; }
struct LargeElem { public long A, B; }
struct PinnedElem { public long A; }
struct HandlePinnedElem { public long A; }

static class Program
{
    const int N = 1000;
    static DiesYoung[]? young;
    static Outer.Inner[]? nested;
    static Outer.Inner.Deep[]? deep;
    static SurvivesOneGC[]? one;
    static Gen2ThenDies[]? gen2;
    static LivesToEnd[]? toEnd;
    static CompactSurvivor[]? compact;
    static LargeElem[][]? large;
    static PinnedElem[][]? pinned;
    static HandlePinnedElem[][]? handlePinned;
    static GCHandle[]? handles;

    // How many of these objects are in gen2 (LOH and POH say 2 too) right now.
    static int InGen2(IEnumerable<object?> objs)
    {
        int n = 0;
        foreach (var o in objs) if (o != null && GC.GetGeneration(o) == 2) n++;
        return n;
    }

    // Where the survivors are at the end: GC.GetGeneration (LOH and POH say 2).
    static void ExpectGenerations(string type, IEnumerable<object?> objs)
    {
        var n = new int[3];
        foreach (var o in objs) if (o != null) n[GC.GetGeneration(o)]++;
        Console.WriteLine($"expect type={type} alive_gen0={n[0]} alive_gen1={n[1]} alive_gen2={n[2]}");
    }

    static void Expect(string type, int allocated, int g0, int g1, int g2, int gen2Deaths, int alive)
    {
        Console.WriteLine($"expect type={type} allocated={allocated} died_gen0={g0} died_gen1={g1} " +
                          $"died_gen2={g2} gen2_deaths={gen2Deaths} alive_end={alive}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocNested()
    {
        nested = new Outer.Inner[300]; for (int i = 0; i < 300; i++) nested[i] = new Outer.Inner();
        deep = new Outer.Inner.Deep[200]; for (int i = 0; i < 200; i++) deep[i] = new Outer.Inner.Deep();
    }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocYoung() { young = new DiesYoung[N]; for (int i = 0; i < N; i++) young[i] = new DiesYoung(); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocOne() { one = new SurvivesOneGC[N]; for (int i = 0; i < N; i++) one[i] = new SurvivesOneGC(); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocGen2() { gen2 = new Gen2ThenDies[N]; for (int i = 0; i < N; i++) gen2[i] = new Gen2ThenDies(); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocToEnd() { toEnd = new LivesToEnd[N]; for (int i = 0; i < N; i++) toEnd[i] = new LivesToEnd(); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void AllocCompact() { compact = new CompactSurvivor[N]; for (int i = 0; i < N; i++) compact[i] = new CompactSurvivor(); }
    [MethodImpl(MethodImplOptions.NoInlining)]
    static int AllocNonCompact()
    {
        var keep = new NonCompactDies[N];
        for (int i = 0; i < N; i++) keep[i] = new NonCompactDies();
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        return InGen2(keep);
    }

    static void Exact()
    {
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);

        // Dies young: unreachable before the first gen-0 GC after it.
        AllocYoung();
        young = null;
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        Expect("ProfileLoad.DiesYoung", N, N, 0, 0, 0, 0);

        // Nested types, named with their enclosing types: 300 and 200 die young.
        AllocNested();
        nested = null; deep = null;
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        Expect("ProfileLoad.Outer+Inner", 300, 300, 0, 0, 0, 0);
        Expect("ProfileLoad.Outer+Inner+Deep", 200, 200, 0, 0, 0, 0);

        // Survives one gen-0 GC, dies in the next gen-1 GC. The runtime may
        // make that GC a gen-2 one (seen once in about 30 runs under server
        // GC): the account says where they died by the gen-2 count.
        AllocOne();
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        one = null;
        int gen2Before = GC.CollectionCount(2);
        GC.Collect(1, GCCollectionMode.Forced, blocking: true);
        bool wasGen2 = GC.CollectionCount(2) != gen2Before;
        Expect("ProfileLoad.SurvivesOneGC", N, 0, wasGen2 ? 0 : N, wasGen2 ? N : 0, 0, 0);

        // Lives to gen2 (two GCs), then dies in a gen-2 GC.
        AllocGen2();
        GC.Collect(1, GCCollectionMode.Forced, blocking: true);
        GC.Collect(1, GCCollectionMode.Forced, blocking: true);
        int g2 = InGen2(gen2!);
        gen2 = null;
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        Expect("ProfileLoad.Gen2ThenDies", N, 0, 0, N, g2, 0);

        // Large objects: 20 on the LOH, 10 die in a compacting gen-2 GC.
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        large = new LargeElem[20][];
        for (int i = 0; i < 20; i++) large[i] = new LargeElem[10000];
        g2 = 0;
        for (int i = 0; i < 20; i += 2) { g2 += GC.GetGeneration(large[i]) == 2 ? 1 : 0; large[i] = null!; }
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        Expect("ProfileLoad.LargeElem[]", 20, 0, 0, 10, g2, 10);

        // Pinned object heap: 20 arrays, 10 die in a gen-2 GC.
        pinned = new PinnedElem[20][];
        for (int i = 0; i < 20; i++) pinned[i] = GC.AllocateArray<PinnedElem>(16, pinned: true);
        g2 = 0;
        for (int i = 0; i < 20; i += 2) { g2 += GC.GetGeneration(pinned[i]) == 2 ? 1 : 0; pinned[i] = null!; }
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        Expect("ProfileLoad.PinnedElem[]", 20, 0, 0, 10, g2, 10);

        // Pinned by handles in gen0 through a compacting gen-0 GC, then freed;
        // they die in the next gen-1 GC.
        handlePinned = new HandlePinnedElem[50][];
        handles = new GCHandle[50];
        for (int i = 0; i < 50; i++)
        {
            handlePinned[i] = new HandlePinnedElem[4];
            handles[i] = GCHandle.Alloc(handlePinned[i], GCHandleType.Pinned);
        }
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        for (int i = 0; i < 50; i++) handles[i].Free();
        handlePinned = null;
        GC.Collect(1, GCCollectionMode.Forced, blocking: true);
        Expect("ProfileLoad.HandlePinnedElem[]", 50, 0, 50, 0, 0, 0);

        // Compacting then non-compacting gen-2 GCs: half die in the second.
        AllocCompact();
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        g2 = 0;
        for (int i = 0; i < N; i += 2) { g2 += GC.GetGeneration(compact![i]) == 2 ? 1 : 0; compact![i] = null!; }
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: false);
        Expect("ProfileLoad.CompactSurvivor", N, 0, 0, N / 2, g2, N / 2);

        // Survive a compacting gen-2 GC (inside AllocNonCompact), die in a
        // non-compacting one.
        g2 = AllocNonCompact();
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: false);
        Expect("ProfileLoad.NonCompactDies", N, 0, 0, N, g2, 0);

        // Lives to the end.
        AllocToEnd();
        Expect("ProfileLoad.LivesToEnd", N, 0, 0, 0, 0, N);
        // The generations of the survivors, after the last GC (no GC follows).
        ExpectGenerations("ProfileLoad.LivesToEnd", toEnd!);
        ExpectGenerations("ProfileLoad.LargeElem[]", large!);
        ExpectGenerations("ProfileLoad.PinnedElem[]", pinned!);
        ExpectGenerations("ProfileLoad.CompactSurvivor", compact!);
        Console.Out.Flush();
        GC.KeepAlive(toEnd);
        GC.KeepAlive(large);
        GC.KeepAlive(pinned);
        GC.KeepAlive(compact);
    }

    static void Churn(long n)
    {
        var window = new ChurnItem[10000];
        var sw = Stopwatch.StartNew();
        for (long i = 0; i < n; i++) window[i % window.Length] = new ChurnItem { A = i };
        sw.Stop();
        Console.WriteLine($"churn objects={n} ms={sw.Elapsed.TotalMilliseconds:F1} gcs={GC.CollectionCount(0)}");
        GC.KeepAlive(window);
    }

    static void Live(int n, int rounds)
    {
        var items = new LiveItem[n];
        for (int i = 0; i < n; i++) items[i] = new LiveItem { A = i };
        // Every other object dies, so each GC moves many ranges.
        for (int i = 0; i < n; i += 2) items[i] = null!;
        var sw = Stopwatch.StartNew();
        for (int r = 0; r < rounds; r++) GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        sw.Stop();
        Console.WriteLine($"live objects={n / 2} rounds={rounds} ms_per_gc={sw.Elapsed.TotalMilliseconds / rounds:F2}");
        GC.KeepAlive(items);
    }

    static void Oom()
    {
        var hold = new List<long[]>();
        try
        {
            for (;;) hold.Add(new long[1024 * 1024]);
        }
        catch (OutOfMemoryException)
        {
            int n = hold.Count;
            hold.Clear();
            Console.WriteLine($"oom caught after {n} arrays");
        }
    }

    static void Threads(int t, int n)
    {
        var threads = new Thread[t];
        long total = 0;
        for (int k = 0; k < t; k++)
        {
            threads[k] = new Thread(() =>
            {
                var w = new ChurnItem[1000];
                for (int i = 0; i < n; i++) w[i % w.Length] = new ChurnItem { A = i };
                Interlocked.Add(ref total, n);
            });
            threads[k].Start();
        }
        foreach (var th in threads) th.Join();
        Console.WriteLine($"threads allocated={total}");
    }

    static int Main(string[] args)
    {
        string mode = args.Length > 0 ? args[0] : "exact";
        switch (mode)
        {
            case "exact": Exact(); break;
            case "churn": Churn(args.Length > 1 ? long.Parse(args[1]) : 10_000_000); break;
            case "live": Live(args.Length > 1 ? int.Parse(args[1]) : 2_000_000, args.Length > 2 ? int.Parse(args[2]) : 5); break;
            case "oom": Oom(); break;
            case "threads": Threads(args.Length > 1 ? int.Parse(args[1]) : 4, args.Length > 2 ? int.Parse(args[2]) : 1_000_000); break;
            default: Console.Error.WriteLine("modes: exact | churn N | live N R | oom | threads T N"); return 2;
        }
        return 0;
    }
}
