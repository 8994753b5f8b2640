// names: a small workload whose trace exercises how TraceEvent names
// EventSource events: its own EventSource with tasks and every kind of
// opcode (Start/Stop, Send/Receive, custom, none, implied by the name),
// and real work for System.Threading.Tasks.TplEventSource (tasks, waits,
// awaits), for the sample profiler (busy threads), two runtime events
// TraceEvent does not know (Increase/DecreaseMemoryPressure) and two newer
// than gcscope's manifest (WaitHandleWait/Start and /Stop).
//
// Usage: names [--rounds N]
// Prints "names: ..." lines on stdout only.

using System.Diagnostics.Tracing;
using System.Globalization;

namespace GcScopeNames;

[EventSource(Name = "GcScope-Names")]
public sealed class NamesEventSource : EventSource
{
    public static readonly NamesEventSource Log = new();

    public static class Tasks
    {
        public const EventTask Request = (EventTask)1;
        public const EventTask Transfer = (EventTask)2;
        public const EventTask Phase = (EventTask)3;
        public const EventTask Checkpoint = (EventTask)4;
    }

    public static class Opcodes
    {
        public const EventOpcode Flush = (EventOpcode)11;
        public const EventOpcode Spill = (EventOpcode)12;
    }

    // Task + Start/Stop, names ending in Start/Stop (EventSource's activity pattern).
    [Event(1, Task = Tasks.Request, Opcode = EventOpcode.Start)]
    public void RequestStart(int Id, string Path) => WriteEvent(1, Id, Path);

    [Event(2, Task = Tasks.Request, Opcode = EventOpcode.Stop)]
    public void RequestStop(int Id, long Bytes) => WriteEvent(2, Id, Bytes);

    // Task + Send/Receive, names that do not say so.
    [Event(3, Task = Tasks.Transfer, Opcode = EventOpcode.Send)]
    public void TransferBegin(int Id) => WriteEvent(3, Id);

    [Event(4, Task = Tasks.Transfer, Opcode = EventOpcode.Receive)]
    public void TransferEnd(int Id) => WriteEvent(4, Id);

    // Task + custom opcodes.
    [Event(5, Task = Tasks.Phase, Opcode = Opcodes.Flush)]
    public void PhaseFlush(int Id) => WriteEvent(5, Id);

    [Event(6, Task = Tasks.Phase, Opcode = Opcodes.Spill)]
    public void PhaseSpilled(int Id, double Ratio) => WriteEvent(6, Id, Ratio);

    // Task, no opcode (Info).
    [Event(7, Task = Tasks.Checkpoint)]
    public void CheckpointReached(int Id) => WriteEvent(7, Id);

    // No task, no opcode.
    [Event(8)]
    public void Plain(int Id, string Text) => WriteEvent(8, Id, Text);

    // No task, name ends in Start/Stop: EventSource gives it Start/Stop
    // opcodes and a task of its own name.
    [Event(9)]
    public void WorkStart(int Id) => WriteEvent(9, Id);

    [Event(10)]
    public void WorkStop(int Id) => WriteEvent(10, Id);

    // Start opcode on a name that does not end in Start.
    [Event(11, Opcode = EventOpcode.Start)]
    public void Begin(int Id) => WriteEvent(11, Id);

    // Other standard opcodes.
    [Event(12, Opcode = EventOpcode.Resume)]
    public void Resumed(int Id) => WriteEvent(12, Id);

    [Event(13, Opcode = EventOpcode.Suspend)]
    public void Suspended(int Id) => WriteEvent(13, Id);

    [Event(14, Opcode = EventOpcode.Reply)]
    public void Replied(int Id) => WriteEvent(14, Id);

    [Event(15, Opcode = EventOpcode.Extension)]
    public void Extended(int Id) => WriteEvent(15, Id);

    [Event(16, Opcode = EventOpcode.DataCollectionStart)]
    public void CollectFrom(int Id) => WriteEvent(16, Id);

    [Event(17, Opcode = EventOpcode.Info)]
    public void InfoStart(int Id) => WriteEvent(17, Id);

    [Event(18, Task = Tasks.Checkpoint, Opcode = EventOpcode.Stop)]
    public void CheckpointStopped(int Id) => WriteEvent(18, Id);
}

public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        int rounds = 20;
        for (int i = 0; i < args.Length; i++)
            if (args[i] == "--rounds" && i + 1 < args.Length)
                rounds = int.Parse(args[++i], CultureInfo.InvariantCulture);

        var log = NamesEventSource.Log;
        long checksum = 0;
        for (int r = 0; r < rounds; r++)
        {
            log.RequestStart(r, "/r/" + r.ToString(CultureInfo.InvariantCulture));
            log.TransferBegin(r);
            log.PhaseFlush(r);
            log.PhaseSpilled(r, r / 4.0);
            log.CheckpointReached(r);
            log.Plain(r, "plain");
            log.WorkStart(r);
            log.Begin(r);
            log.Resumed(r);
            log.Suspended(r);
            log.Replied(r);
            log.Extended(r);
            log.CollectFrom(r);
            log.InfoStart(r);
            log.CheckpointStopped(r);

            // TPL: scheduled/started/completed tasks, waits, awaits with continuations.
            var t = Task.Run(() => Spin(20_000 + r));
            t.Wait();
            checksum += t.Result;
            checksum += await Task.Run(() => Spin(10_000));
            await Task.Delay(1);
            checksum += await Task.WhenAll(Task.Run(() => Spin(5_000)), Task.Run(() => Spin(6_000)))
                .ContinueWith(a => a.Result[0] + a.Result[1]);

            log.WorkStop(r);
            log.TransferEnd(r);
            log.RequestStop(r, checksum);
        }
        // Runtime events TraceEvent has no template for (ids 200 and 201).
        GC.AddMemoryPressure(1600);
        GC.RemoveMemoryPressure(1600);
        // WaitHandleWait/Start and /Stop (.NET 9, ids 301 and 302, newer than
        // the manifest gcscope's table was generated from): a Monitor.Wait
        // (WaitSource MonitorWait) and a wait on an unset event (Unknown).
        var gate = new object();
        lock (gate)
            Monitor.Wait(gate, 2);
        using (var unset = new ManualResetEventSlim(false))
            unset.WaitHandle.WaitOne(2);
        // Busy threads for the sample profiler (it samples every ~1 ms).
        checksum += Spin(30_000_000);
        Console.WriteLine($"names: rounds {rounds} checksum {checksum}");
        return 0;
    }

    static long Spin(int n)
    {
        long x = 1;
        for (int i = 0; i < n; i++)
            x = x * 6364136223846793005L + 1442695040888963407L;
        return x & 0xffff;
    }
}
