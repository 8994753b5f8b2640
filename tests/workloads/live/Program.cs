// Workload for gcscope's live tests. It says what it did in GC terms
// (GC.CollectionCount deltas) so the tests can compare with what gcscope
// saw from outside.
//
//   live steady N      "ready", wait for a stdin line, N induced GCs
//                      (gen 0,1,2,0,1,2...), print counts, wait for stdin EOF
//   live exit N        same, but exit right after printing (mid-session)
//   live longpause MB  build a heap of MB megabytes of small linked objects,
//                      "ready", wait, one blocking compacting gen2 GC (a
//                      long pause), print counts, wait for stdin EOF
//   live background N  a heap of small linked objects (~60 MB), "ready",
//                      wait, N background gen2 GCs, each with garbage
//                      allocated while it runs (foreground gen0/1 GCs),
//                      print counts, wait for stdin EOF
//   live alloc SECONDS [THREADS]  allocate short-lived garbage for SECONDS
//                      on THREADS threads (default 1; normal GC rate, for
//                      benchmarks), print counts, exit
using System;
using System.Collections.Generic;
using System.Diagnostics;

static class Workload
{
    sealed class Node { public Node Next; public long A; }

    static int[] Counts() => new[] { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };

    static void Report(int[] before)
    {
        int[] after = Counts();
        int d0 = after[0] - before[0], d1 = after[1] - before[1], d2 = after[2] - before[2];
        // Every GC counts in generation 0; a gen-N GC counts in 0..N.
        Console.WriteLine($"gcs total={d0} gen0={d0 - d1} gen1={d1 - d2} gen2={d2}");
    }

    static int Main(string[] args)
    {
        string mode = args.Length > 0 ? args[0] : "steady";
        int n = args.Length > 1 ? int.Parse(args[1]) : 10;
        Console.WriteLine($"pid {Environment.ProcessId}");
        if (mode == "alloc") {
            int threads = args.Length > 2 ? int.Parse(args[2]) : 1;
            int[] b0 = Counts();
            var workers = new System.Threading.Thread[threads];
            for (int t = 0; t < threads; t++) {
                workers[t] = new System.Threading.Thread(() => {
                    var sw = Stopwatch.StartNew();
                    var keep = new object[1024];
                    long i = 0;
                    while (sw.Elapsed.TotalSeconds < n) {
                        keep[i++ & 1023] = new byte[(int)(i % 2000) + 16];
                    }
                });
                workers[t].Start();
            }
            foreach (var w in workers) w.Join();
            Report(b0);
            return 0;
        }
        List<Node> roots = null;
        if (mode == "longpause" || mode == "background") {
            roots = new List<Node>();
            long objects = (mode == "background" ? 60L : n) * 1024 * 1024 / 40;
            Node head = null;
            for (long i = 0; i < objects; i++) {
                head = new Node { Next = head, A = i };
                if (i % 4096 == 0) { roots.Add(head); head = null; }
            }
            roots.Add(head);
        }
        Console.WriteLine("ready");
        Console.In.ReadLine();
        int[] before = Counts();
        if (mode == "longpause") {
            GC.Collect(2, GCCollectionMode.Forced, true, true);
            GC.KeepAlive(roots);
        } else if (mode == "background") {
            var keep = new object[4096];
            long k = 0;
            for (int i = 0; i < n; i++) {
                // Not blocking: a background GC when concurrent GC is on.
                GC.Collect(2, GCCollectionMode.Forced, false);
                var sw = Stopwatch.StartNew();
                while (sw.ElapsedMilliseconds < 150)
                    keep[k++ & 4095] = new byte[(int)(k % 4000) + 16];
            }
            GC.KeepAlive(roots);
            GC.KeepAlive(keep);
        } else {
            var keep = new List<byte[]>();
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < 100; j++) keep.Add(new byte[64]);
                GC.Collect(i % 3, GCCollectionMode.Forced, true);
            }
            GC.KeepAlive(keep);
        }
        Report(before);
        if (mode == "exit")
            return 0;
        Console.In.ReadToEnd();
        return 0;
    }
}
