// oracle: TraceEvent's view of an EventPipe trace (.nettrace / .netperf),
// used as the reference that gcscope's C reader and analyzer are compared to.
//
//   oracle dump TRACE             one line per Provider/EventName: count and the first
//                                 event's XML, as in the perfview *.baseline.txt files
//   oracle dump --tracelog TRACE  the same through TraceLog (ETLX), exactly as the
//                                 perfview baselines were made
//   oracle dump --all TRACE       every event, one per line (format in docs/fixtures.md)
//   oracle gcstats TRACE          JSON of TraceLoadedDotNetRuntime's GCs and GC stats
//   oracle bench-events TRACE     (scripts/bench.sh) TraceEvent enumerating every event
//                                 through its CLR, private, rundown and dynamic parsers,
//                                 as `dump` does, without formatting: prints the count
//   oracle bench-format TRACE     (scripts/bench.sh) the same enumeration, every event's
//                                 fields read and formatted as text (name=value, as
//                                 `dump --all` writes them), nothing written: prints the
//                                 count of events and characters
//   oracle bench-gc TRACE         (scripts/bench.sh) TraceEvent's GC analysis, as `gcstats`
//                                 runs it (TraceLoadedDotNetRuntime, GC.Stats()), without
//                                 the JSON: prints the GC count
//   oracle summary TRACE          one markdown table row for docs/fixtures.md: event count,
//                                 GCs by type and generation, reasons, heap count; then one
//                                 line per distinct provider/event/version ("version ...")
//   oracle allocstacks TRACE      the call stacks TraceLog resolves for the runtime's GC
//                                 AllocationTick events, aggregated (format at AllocStacks)
//
// Output is culture-invariant; floating-point numbers are written round-trip ("R").

using System.Collections;
using System.Globalization;
using System.Text;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Analysis.GC;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace GcScope.Oracle;

public static class Program
{
    static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    public static int Main(string[] args)
    {
        CultureInfo.DefaultThreadCurrentCulture = Inv;
        CultureInfo.CurrentCulture = Inv;
        var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16) { NewLine = "\n", AutoFlush = false };
        try
        {
            if (args.Length >= 2 && args[0] == "dump")
            {
                bool all = args.Contains("--all");
                bool tracelog = args.Contains("--tracelog");
                string path = args.Last();
                if (all) DumpAll(path, stdout);
                else if (tracelog) DumpSummaryTraceLog(path, stdout);
                else DumpSummary(path, stdout);
            }
            else if (args.Length == 2 && args[0] == "summary")
            {
                Summary(args[1], stdout);
            }
            else if (args.Length == 2 && args[0] == "gcstats")
            {
                GcStats(args[1], stdout);
            }
            else if (args.Length == 2 && args[0] == "bench-events")
            {
                long n = 0;
                ForEachEvent(args[1], _ => n++);
                stdout.WriteLine("events " + n.ToString(Inv));
            }
            else if (args.Length == 2 && args[0] == "bench-format")
            {
                long n = 0, chars = 0;
                var sb = new StringBuilder(1024);
                ForEachEvent(args[1], data =>
                {
                    sb.Clear();
                    AppendFields(sb, data);
                    chars += sb.Length;
                    n++;
                });
                stdout.WriteLine("events " + n.ToString(Inv) + " chars " + chars.ToString(Inv));
            }
            else if (args.Length == 2 && args[0] == "bench-gc")
            {
                BenchGc(args[1], stdout);
            }
            else if (args.Length == 2 && args[0] == "allocstacks")
            {
                AllocStacks(args[1], stdout);
            }
            else
            {
                Console.Error.WriteLine("usage: oracle dump [--all|--tracelog] TRACE | oracle gcstats TRACE | oracle summary TRACE | oracle allocstacks TRACE");
                return 2;
            }
        }
        finally
        {
            stdout.Flush();
        }
        return 0;
    }

    // ------------------------------------------------------------------
    // Event sources
    // ------------------------------------------------------------------

    /// <summary>
    /// The trace's event source: CtfTraceEventSource for an LTTng trace zipped by
    /// perfcollect (*.zip), EventPipeEventSource for everything else.
    /// </summary>
    static TraceEventDispatcher OpenSource(string path)
    {
        if (path.EndsWith(".zip", StringComparison.OrdinalIgnoreCase))
        {
            var ctf = new CtfTraceEventSource(path);
            ctf.ParseMetadata();
            return ctf;
        }
        return new EventPipeEventSource(path);
    }

    /// <summary>
    /// Runs every event of the trace through <paramref name="onEvent"/> once, parsed by
    /// TraceEvent's CLR (public, private, rundown), sample-profiler and dynamic parsers.
    /// </summary>
    static void ForEachEvent(string path, Action<TraceEvent> onEvent)
    {
        using var source = OpenSource(path);
        long lastIndex = -1;
        TraceEvent? lastEvent = null;
        void Handler(TraceEvent data)
        {
            // The same event can reach several parsers' callbacks; take it once.
            if (lastEvent != null && (long)data.EventIndex == lastIndex && data.TimeStampQPC == lastEvent.TimeStampQPC)
                return;
            lastIndex = (long)data.EventIndex;
            lastEvent = data;
            onEvent(data);
        }

        var clr = source.Clr;
        clr.All += Handler;
        var priv = new ClrPrivateTraceEventParser(source);
        priv.All += Handler;
        var rundown = new ClrRundownTraceEventParser(source);
        rundown.All += Handler;
        source.Dynamic.All += Handler;
        source.UnhandledEvents += Handler;
        source.Process();
    }

    // ------------------------------------------------------------------
    // dump: counts + first event, baseline style
    // ------------------------------------------------------------------

    sealed class Record { public int Count; public string First = ""; }

    static void AddRecord(SortedDictionary<string, Record> records, TraceEvent data)
    {
        string key = data.ProviderName + "/" + data.EventName;
        if (records.TryGetValue(key, out var r))
        {
            r.Count++;
            return;
        }
        string s = data.ToString().Replace("\n", "\\n").Replace("\r", "\\r");
        if (s.Length > 1000) s = s.Substring(0, 1000);
        records[key] = new Record { Count = 1, First = s };
    }

    static void WriteRecords(SortedDictionary<string, Record> records, TextWriter w)
    {
        foreach (var kv in records)
            w.WriteLine($"{kv.Key}, {kv.Value.Count}, {kv.Value.First}");
    }

    static void DumpSummary(string path, TextWriter w)
    {
        var records = new SortedDictionary<string, Record>(StringComparer.Ordinal);
        ForEachEvent(path, data => AddRecord(records, data));
        WriteRecords(records, w);
    }

    static void DumpSummaryTraceLog(string path, TextWriter w)
    {
        var records = new SortedDictionary<string, Record>(StringComparer.Ordinal);
        string etlx = Path.Combine(Path.GetTempPath(), "oracle-" + Environment.ProcessId + "-" + Guid.NewGuid().ToString("N") + ".etlx");
        try
        {
            Microsoft.Diagnostics.Tracing.Etlx.TraceLog.CreateFromEventPipeDataFile(path, etlx);
            using var log = new Microsoft.Diagnostics.Tracing.Etlx.TraceLog(etlx);
            var source = log.Events.GetSource();
            source.AllEvents += data => AddRecord(records, data);
            source.Process();
        }
        finally
        {
            try { File.Delete(etlx); } catch (IOException) { }
        }
        WriteRecords(records, w);
    }

    // ------------------------------------------------------------------
    // dump --all: every event with every payload field
    // ------------------------------------------------------------------

    static void DumpAll(string path, TextWriter w)
    {
        var sb = new StringBuilder(1024);
        ForEachEvent(path, data =>
        {
            sb.Clear();
            AppendFields(sb, data);
            AppendExtras(sb, data);
            w.WriteLine(sb.ToString());
        });
    }

    /// <summary>One event as `dump --all` writes it, without the indexed arrays.</summary>
    static void AppendFields(StringBuilder sb, TraceEvent data)
    {
        sb.Append(data.TimeStampRelativeMSec.ToString("F3", Inv));
        sb.Append(" pid=").Append(data.ProcessID.ToString(Inv));
        sb.Append(" tid=").Append(data.ThreadID.ToString(Inv));
        sb.Append(' ').Append(data.ProviderName).Append('/').Append(data.EventName);
        sb.Append(" id=").Append(((int)data.ID).ToString(Inv));
        sb.Append(" v=").Append(data.Version.ToString(Inv));
        string[]? names = null;
        try { names = data.PayloadNames; } catch (Exception e) { sb.Append(" <payload-names-error:").Append(e.GetType().Name).Append('>'); }
        if (names == null)
            return;
        for (int i = 0; i < names.Length; i++)
        {
            sb.Append(' ').Append(names[i]).Append('=');
            object? v;
            try { v = data.PayloadValue(i); }
            catch (Exception e) { sb.Append("<error:").Append(e.GetType().Name).Append('>'); continue; }
            FormatValue(sb, v);
        }
    }

    // Several CLR events carry arrays that TraceEvent does not list in PayloadNames
    // but exposes through indexer methods (Values(i), Info(i), Buckets(i), GenData(gen)).
    // They are printed after the payload fields as NAME[i]={Prop=value,...}.
    static readonly string[] IndexedMethods = { "Values", "Info", "Buckets" };

    static void AppendExtras(StringBuilder sb, TraceEvent data)
    {
        var type = data.GetType();
        if (type.Namespace == null || !type.Namespace.StartsWith("Microsoft.Diagnostics.Tracing.Parsers.Clr", StringComparison.Ordinal))
            return;
        foreach (var m in type.GetMethods(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.DeclaredOnly))
        {
            var ps = m.GetParameters();
            if (ps.Length != 1) continue;
            int count;
            Func<int, object> arg;
            if (ps[0].ParameterType == typeof(int) && Array.IndexOf(IndexedMethods, m.Name) >= 0)
            {
                var cp = type.GetProperty("Count");
                if (cp == null) continue;
                try { count = Convert.ToInt32(cp.GetValue(data), Inv); } catch (Exception) { continue; }
                arg = i => i;
            }
            else if (ps[0].ParameterType == typeof(Gens) && m.Name == "GenData")
            {
                count = 5;
                var cp = type.GetProperty("Count");
                try { if (cp != null) count = Math.Min(count, Convert.ToInt32(cp.GetValue(data), Inv)); } catch (Exception) { }
                arg = i => (Gens)i;
            }
            else continue;
            count = Math.Max(0, Math.Min(count, 100_000));
            for (int i = 0; i < count; i++)
            {
                sb.Append(' ').Append(m.Name).Append('[').Append(i.ToString(Inv)).Append("]=");
                object? v;
                try { v = m.Invoke(data, new[] { arg(i) }); }
                catch (Exception e) { sb.Append("<error:").Append((e.InnerException ?? e).GetType().Name).Append('>'); continue; }
                AppendObject(sb, v);
            }
        }
    }

    static void AppendObject(StringBuilder sb, object? v)
    {
        if (v == null || v.GetType().IsPrimitive || v is string || v is Enum) { FormatValue(sb, v); return; }
        var props = v.GetType().GetProperties(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Instance);
        sb.Append('{');
        bool first = true;
        foreach (var p in props)
        {
            if (p.GetIndexParameters().Length != 0) continue;
            if (p.Name.StartsWith("Has", StringComparison.Ordinal) && p.PropertyType == typeof(bool)) continue;
            if (!first) sb.Append(',');
            first = false;
            sb.Append(p.Name).Append('=');
            var has = v.GetType().GetProperty("Has" + p.Name);
            try
            {
                if (has != null && has.PropertyType == typeof(bool) && !(bool)has.GetValue(v)!) sb.Append("null");
                else FormatValue(sb, p.GetValue(v));
            }
            catch (Exception e) { sb.Append("<error:").Append((e.InnerException ?? e).GetType().Name).Append('>'); }
        }
        sb.Append('}');
    }

    static void FormatValue(StringBuilder sb, object? v)
    {
        switch (v)
        {
            case null: sb.Append("null"); return;
            case string s: AppendQuoted(sb, s); return;
            case bool b: sb.Append(b ? "true" : "false"); return;
            case char c: AppendQuoted(sb, c.ToString()); return;
            case double d: sb.Append(d.ToString("R", Inv)); return;
            case float f: sb.Append(f.ToString("R", Inv)); return;
            case Enum e: sb.Append(Convert.ToUInt64(e, Inv) > long.MaxValue ? Convert.ToUInt64(e, Inv).ToString(Inv) : Convert.ToInt64(e, Inv).ToString(Inv)); return;
            case Guid g: sb.Append(g.ToString("D")); return;
            case DateTime dt: sb.Append(dt.ToUniversalTime().ToString("O", Inv)); return;
            case byte[] bytes:
                sb.Append("0x");
                foreach (byte x in bytes) sb.Append(x.ToString("x2", Inv));
                return;
            case IFormattable fm when v.GetType().IsPrimitive || v is decimal:
                sb.Append(fm.ToString(null, Inv)); return;
            case IDictionary<string, object> dict:
                sb.Append('{');
                bool first = true;
                foreach (var kv in dict)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    sb.Append(kv.Key).Append('=');
                    FormatValue(sb, kv.Value);
                }
                sb.Append('}');
                return;
            case IEnumerable en:
                sb.Append('[');
                bool f1 = true;
                foreach (object? o in en)
                {
                    if (!f1) sb.Append(',');
                    f1 = false;
                    FormatValue(sb, o);
                }
                sb.Append(']');
                return;
            default:
                AppendQuoted(sb, Convert.ToString(v, Inv) ?? "");
                return;
        }
    }

    static void AppendQuoted(StringBuilder sb, string s)
    {
        sb.Append('"');
        foreach (char c in s)
        {
            switch (c)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                default:
                    if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4", Inv));
                    else sb.Append(c);
                    break;
            }
        }
        sb.Append('"');
    }

    // ------------------------------------------------------------------
    // summary: what a fixture contains, for docs/fixtures.md
    // ------------------------------------------------------------------

    static void Summary(string path, TextWriter w)
    {
        long events = 0;
        var versions = new SortedDictionary<string, long>(StringComparer.Ordinal);
        ForEachEvent(path, data =>
        {
            events++;
            string k = $"{data.ProviderName}/{data.EventName} id={(int)data.ID} v={data.Version}";
            versions.TryGetValue(k, out long c);
            versions[k] = c + 1;
        });

        using var source = OpenSource(path);
        source.NeedLoadedDotNetRuntimes();
        source.Process();
        var gcs = new List<TraceGC>();
        int heaps = 0;
        string mode = "?";
        foreach (var proc in source.Processes())
        {
            var rt = proc.LoadedDotNetRuntime();
            if (rt == null) continue;
            gcs.AddRange(rt.GC.GCs);
            try
            {
                var st = rt.GC.Stats();
                heaps = Math.Max(heaps, st.HeapCount);
                mode = st.IsServerGCUsed switch { 1 => "server", 0 => "workstation", _ => "unknown" };
            }
            catch (Exception) { }
        }
        string ByGen(GCType t)
        {
            var sel = gcs.Where(g => g.Type == t).ToList();
            if (sel.Count == 0) return "0";
            return sel.Count.ToString(Inv) + " (" + string.Join(", ", sel.GroupBy(g => g.Generation).OrderBy(g => g.Key).Select(g => $"g{g.Key}: {g.Count()}")) + ")";
        }
        string reasons = string.Join(", ", gcs.GroupBy(g => g.Reason.ToString()).OrderByDescending(g => g.Count()).ThenBy(g => g.Key, StringComparer.Ordinal).Select(g => $"{g.Key} {g.Count()}"));
        int complete = gcs.Count(g => g.IsComplete);
        w.WriteLine($"| {events} | {gcs.Count} ({complete} complete) | {ByGen(GCType.NonConcurrentGC)} | {ByGen(GCType.BackgroundGC)} | {ByGen(GCType.ForegroundGC)} | {reasons} | {heaps} / {mode} |");
        foreach (var kv in versions) w.WriteLine($"version {kv.Key} count={kv.Value}");
    }

    // ------------------------------------------------------------------
    // gcstats: TraceLoadedDotNetRuntime GC analysis as JSON
    // ------------------------------------------------------------------

    /// <summary>The GC analysis of <see cref="GcStats"/>, timed by scripts/bench.sh:
    /// every process's GCs and their stats, then only the counts printed.</summary>
    static void BenchGc(string path, TextWriter w)
    {
        using var source = OpenSource(path); // a zipped LTTng trace too (the CTF shape)
        source.NeedLoadedDotNetRuntimes();
        source.Process();
        long gcs = 0;
        double pause = 0;
        foreach (var proc in source.Processes())
        {
            TraceLoadedDotNetRuntime? rt = null;
            try { rt = proc.LoadedDotNetRuntime(); } catch (Exception) { }
            if (rt == null) continue;
            try { pause += rt.GC.Stats().TotalPauseTimeMSec; } catch (Exception) { }
            gcs += rt.GC.GCs.Count;
        }
        w.WriteLine("gcs " + gcs.ToString(Inv) + " pause_ms " + pause.ToString("R", Inv));
    }

    static void GcStats(string path, TextWriter w)
    {
        using var source = OpenSource(path);
        source.NeedLoadedDotNetRuntimes();
        source.Process();

        var j = new Json(w);
        j.BeginObject();
        j.Prop("trace", Path.GetFileName(path));
        j.Prop("traceevent_version", typeof(TraceEvent).Assembly.GetName().Version?.ToString());
        j.Prop("pointer_size", source.PointerSize);
        j.Prop("number_of_processors", source.NumberOfProcessors);
        j.Prop("session_duration_ms", () => source.SessionDuration.TotalMilliseconds);
        j.Key("processes");
        j.BeginArray();
        foreach (var proc in source.Processes().OrderBy(p => p.ProcessID))
        {
            TraceLoadedDotNetRuntime? rt = null;
            try { rt = proc.LoadedDotNetRuntime(); } catch (Exception) { }
            if (rt == null) continue;
            j.BeginObject();
            j.Prop("pid", proc.ProcessID);
            j.Prop("name", () => proc.Name);
            j.Prop("command_line", () => proc.CommandLine);
            j.Prop("runtime_version", () => rt.RuntimeVersion);
            j.Prop("startup_flags", () => rt.StartupFlags.ToString());
            GCStats? stats = null;
            try { stats = rt.GC.Stats(); } catch (Exception) { }
            j.Prop("heap_count", () => stats!.HeapCount);
            j.Prop("gc_mode", () => stats!.IsServerGCUsed switch { 1 => "server", 0 => "workstation", _ => "unknown" });
            j.Prop("is_server_gc_used", () => stats!.IsServerGCUsed);
            j.Prop("has_detailed_gc_info", () => stats!.HasDetailedGCInfo);
            j.Key("gc_settings");
            WriteSettings(j, rt);
            j.Key("stats");
            WriteStats(j, stats);
            j.Key("generations");
            j.BeginArray();
            GCStats[]? gens = null;
            try { gens = rt.GC.Generations(); } catch (Exception) { }
            if (gens != null)
                for (int g = 0; g < gens.Length && g < 3; g++) WriteStats(j, gens[g]);
            j.EndArray();
            j.Key("gcs");
            j.BeginArray();
            foreach (var gc in rt.GC.GCs) WriteGc(j, gc);
            j.EndArray();
            j.EndObject();
        }
        j.EndArray();
        j.EndObject();
        w.WriteLine();
    }

    static void WriteSettings(Json j, TraceLoadedDotNetRuntime rt)
    {
        Microsoft.Diagnostics.Tracing.Analysis.GC.GCSettings? s = null;
        try { s = rt.GC.GCSettings; } catch (Exception) { }
        if (s == null) { j.Null(); return; }
        j.BeginObject();
        j.Prop("hard_limit", () => s.HardLimit);
        j.Prop("loh_threshold", () => s.LOHThreshold);
        j.Prop("physical_memory_config", () => s.PhysicalMemoryConfig);
        j.Prop("gen0_min_budget_config", () => s.Gen0MinBudgetConfig);
        j.Prop("gen0_max_budget_config", () => s.Gen0MaxBudgetConfig);
        j.Prop("high_mem_percent_config", () => s.HighMemPercentConfig);
        j.Prop("bit_settings", () => s.BitSettings.ToString());
        j.EndObject();
    }

    static void WriteStats(Json j, GCStats? s)
    {
        if (s == null) { j.Null(); return; }
        j.BeginObject();
        j.Prop("count", () => s.Count);
        j.Prop("num_induced", () => s.NumInduced);
        j.Prop("total_pause_ms", () => s.TotalPauseTimeMSec);
        j.Prop("max_pause_ms", () => s.MaxPauseDurationMSec);
        j.Prop("mean_pause_ms", () => s.MeanPauseDurationMSec);
        j.Prop("max_suspend_ms", () => s.MaxSuspendDurationMSec);
        j.Prop("max_size_peak_mb", () => s.MaxSizePeakMB);
        j.Prop("mean_size_peak_mb", () => s.MeanSizePeakMB);
        j.Prop("total_size_peak_mb", () => s.TotalSizePeakMB);
        j.Prop("mean_size_after_mb", () => s.MeanSizeAfterMB);
        j.Prop("total_size_after_mb", () => s.TotalSizeAfterMB);
        j.Prop("total_allocated_mb", () => s.TotalAllocatedMB);
        j.Prop("total_promoted_mb", () => s.TotalPromotedMB);
        j.Prop("max_alloc_rate_mb_s", () => s.MaxAllocRateMBSec);
        j.Prop("total_cpu_ms", () => s.TotalCpuMSec);
        j.Prop("mean_cpu_ms", () => s.MeanCpuMSec);
        j.Prop("process_duration_ms", () => s.ProcessDuration);
        j.Prop("gc_pause_time_pct", () => s.GetGCPauseTimePercentage());
        j.Prop("pinned_object_sizes", () => s.PinnedObjectSizes);
        j.Prop("pinned_object_pct", () => s.PinnedObjectPercentage);
        j.Prop("num_with_pin_events", () => s.NumWithPinEvents);
        j.Prop("num_with_pin_plug_events", () => s.NumWithPinPlugEvents);
        j.Prop("heap_count", () => s.HeapCount);
        j.Prop("is_server_gc_used", () => s.IsServerGCUsed);
        j.Prop("interesting", () => s.Interesting);
        j.Prop("gc_version_info_mismatch", () => s.GCVersionInfoMismatch);
        j.Key("finalized_objects");
        if (s.FinalizedObjects == null) j.Null();
        else
        {
            j.BeginObject();
            foreach (var kv in s.FinalizedObjects.OrderBy(k => k.Key, StringComparer.Ordinal)) j.Prop(kv.Key, kv.Value);
            j.EndObject();
        }
        j.EndObject();
    }

    static readonly Gens[] FiveGens = { Gens.Gen0, Gens.Gen1, Gens.Gen2, Gens.GenLargeObj, Gens.GenPinObj };

    static void WriteGc(Json j, TraceGC gc)
    {
        j.BeginObject();
        j.Prop("number", gc.Number);
        j.Prop("generation", gc.Generation);
        j.Prop("type", gc.Type.ToString());
        j.Prop("reason", gc.Reason.ToString());
        j.Prop("reason_id", (int)gc.Reason);
        j.Prop("is_complete", gc.IsComplete);
        j.Prop("heap_count", () => gc.HeapCount);
        j.Prop("start_ms", gc.StartRelativeMSec);
        j.Prop("pause_start_ms", gc.PauseStartRelativeMSec);
        j.Prop("pause_ms", gc.PauseDurationMSec);
        j.Prop("suspend_ms", gc.SuspendDurationMSec);
        j.Prop("duration_ms", gc.DurationMSec);
        j.Prop("duration_since_last_restart_ms", gc.DurationSinceLastRestartMSec);
        j.Prop("bgc_final_pause_ms", gc.BGCFinalPauseMSec);
        j.Prop("pause_time_pct_since_last_gc", gc.PauseTimePercentageSinceLastGC);
        j.Prop("percent_time_in_gc", () => gc.PercentTimeInGC);
        j.Prop("heap_size_before_mb", () => gc.HeapSizeBeforeMB);
        j.Prop("heap_size_after_mb", () => gc.HeapSizeAfterMB);
        j.Prop("heap_size_peak_mb", () => gc.HeapSizePeakMB);
        j.Prop("ratio_peak_after", () => gc.RatioPeakAfter);
        j.Prop("promoted_mb", () => gc.PromotedMB);
        j.Array5("gen_size_before_mb", i => gc.GenSizeBeforeMB[i]);
        j.Array5("gen_size_after_mb", i => gc.GenSizeAfterMB(FiveGens[i]));
        j.Array5("gen_obj_size_after_mb", i => gc.GenObjSizeAfterMB(FiveGens[i]));
        j.Array5("survival_pct", i => gc.SurvivalPercent(FiveGens[i]));
        j.Array5("fragmentation_pct", i => gc.GenFragmentationPercent(FiveGens[i]));
        j.Array5("fragmentation_mb", i => gc.GenFragmentationMB(FiveGens[i]));
        j.Array5("gen_in_mb", i => gc.GenInMB(FiveGens[i]));
        j.Array5("gen_out_mb", i => gc.GenOutMB(FiveGens[i]));
        j.Array5("gen_promoted_mb", i => gc.GenPromotedMB(FiveGens[i]));
        j.Array5("gen_budget_mb", i => gc.GenBudgetMB(FiveGens[i]));
        j.Array5("user_allocated_mb", i => gc.UserAllocated[i]);
        j.Prop("allocated_since_last_gc_mb", () => gc.AllocedSinceLastGCMB);
        j.Prop("alloc_rate_mb_s", () => gc.AllocRateMBSec);
        j.Key("alloced_since_last_gc_alloc_tick_mb");
        if (gc.AllocedSinceLastGCBasedOnAllocTickMB == null) j.Null();
        else { j.BeginArray(); foreach (double d in gc.AllocedSinceLastGCBasedOnAllocTickMB) j.Value(d); j.EndArray(); }
        j.Prop("pinned_objects", () => gc.HeapStats?.PinnedObjectCount);
        j.Prop("pinned_object_sizes", () => gc.GetPinnedObjectSizes());
        j.Prop("pinned_object_pct", () => gc.GetPinnedObjectPercentage());
        j.Prop("total_pinned_plug_size", gc.TotalPinnedPlugSize);
        j.Prop("total_user_pinned_plug_size", gc.TotalUserPinnedPlugSize);
        j.Prop("is_not_compacting", () => gc.IsNotCompacting());
        j.Prop("is_low_ephemeral", () => gc.IsLowEphemeral());
        j.Prop("first_highest_condemned_heap", () => gc.FindFirstHighestCondemnedHeap());
        j.Prop("gc_cpu_ms", gc.GCCpuMSec);
        j.Prop("process_cpu_ms", gc.ProcessCpuMSec);
        j.Prop("total_gc_time_ms", () => gc.GetTotalGCTime());
        j.Key("condemned_reasons");
        WriteCondemned(j, gc);
        j.Key("global_condemned_reasons");
        WriteCondemnedGroups(j, () => gc.GlobalCondemnedReasons);
        j.Key("per_heap_condemned_reasons");
        GCCondemnedReasons[]? per = null;
        try { per = gc.PerHeapCondemnedReasons; } catch (Exception) { }
        if (per == null) j.Null();
        else { j.BeginArray(); foreach (var r in per) WriteCondemnedGroups(j, () => r); j.EndArray(); }
        j.Key("heap_stats");
        WriteHeapStats(j, gc.HeapStats);
        j.Key("global_heap_history");
        WriteGlobalHistory(j, gc.GlobalHeapHistory);
        j.Prop("per_heap_history_count", () => gc.PerHeapHistories?.Count);
        j.EndObject();
    }

    static void WriteCondemned(Json j, TraceGC gc)
    {
        Dictionary<CondemnedReasonGroup, int>? d = null;
        try
        {
            d = new Dictionary<CondemnedReasonGroup, int>();
            gc.GetCondemnedReasons(d);
        }
        catch (Exception) { d = null; }
        if (d == null) { j.Null(); return; }
        j.BeginObject();
        foreach (var kv in d.OrderBy(k => (int)k.Key)) j.Prop(kv.Key.ToString(), kv.Value);
        j.EndObject();
    }

    static void WriteCondemnedGroups(Json j, Func<GCCondemnedReasons?> get)
    {
        GCCondemnedReasons? r = null;
        try { r = get(); } catch (Exception) { }
        if (r == null) { j.Null(); return; }
        j.BeginObject();
        j.Prop("encoded_reasons", () => r.EncodedReasons.Reasons);
        j.Prop("encoded_reasons_ex", () => r.EncodedReasons.ReasonsEx);
        j.Key("groups");
        if (r.CondemnedReasonGroups == null) j.Null();
        else
        {
            j.BeginObject();
            for (int i = 0; i < r.CondemnedReasonGroups.Length; i++)
                if (r.CondemnedReasonGroups[i] != 0)
                    j.Prop(((CondemnedReasonGroup)i).ToString(), r.CondemnedReasonGroups[i]);
            j.EndObject();
        }
        j.EndObject();
    }

    static void WriteHeapStats(Json j, GCHeapStats? h)
    {
        if (h == null) { j.Null(); return; }
        j.BeginObject();
        j.Prop("total_heap_size", h.TotalHeapSize);
        j.Prop("total_promoted", h.TotalPromoted);
        j.Prop("depth", h.Depth);
        j.Key("generation_size");
        j.BeginArray(); foreach (long v in new[] { h.GenerationSize0, h.GenerationSize1, h.GenerationSize2, h.GenerationSize3, h.GenerationSize4 }) j.Value(v); j.EndArray();
        j.Key("total_promoted_size");
        j.BeginArray(); foreach (long v in new[] { h.TotalPromotedSize0, h.TotalPromotedSize1, h.TotalPromotedSize2, h.TotalPromotedSize3, h.TotalPromotedSize4 }) j.Value(v); j.EndArray();
        j.Prop("finalization_promoted_size", h.FinalizationPromotedSize);
        j.Prop("finalization_promoted_count", h.FinalizationPromotedCount);
        j.Prop("pinned_object_count", h.PinnedObjectCount);
        j.Prop("sink_block_count", h.SinkBlockCount);
        j.Prop("gc_handle_count", h.GCHandleCount);
        j.EndObject();
    }

    static void WriteGlobalHistory(Json j, GCGlobalHeapHistory? g)
    {
        if (g == null) { j.Null(); return; }
        j.BeginObject();
        j.Prop("final_youngest_desired", g.FinalYoungestDesired);
        j.Prop("num_heaps", g.NumHeaps);
        j.Prop("condemned_generation", g.CondemnedGeneration);
        j.Prop("gen0_reduction_count", g.Gen0ReductionCount);
        j.Prop("reason", g.Reason.ToString());
        j.Prop("global_mechanisms", ((long)g.GlobalMechanisms));
        j.Prop("pause_mode", ((int)g.PauseMode));
        j.Prop("memory_pressure", g.HasMemoryPressure ? g.MemoryPressure : null);
        j.Prop("condemn_reasons0", g.HasCondemnReasons0 ? g.CondemnReasons0 : null);
        j.Prop("condemn_reasons1", g.HasCondemnReasons1 ? g.CondemnReasons1 : null);
        j.EndObject();
    }

    // ------------------------------------------------------------------
    // allocstacks: TraceLog's call stacks of GC AllocationTick events
    // ------------------------------------------------------------------

    //   ticks<TAB>N<TAB>with_stack<TAB>M<TAB>frames<TAB>F<TAB>resolved<TAB>R
    //   exclusive<TAB>BYTES<TAB>COUNT<TAB>NAME   NAME: FullMethodName of the first frame from
    //                                            the leaf with a method, "?" if none has one,
    //                                            "(no stack)" for a tick without a stack
    //   inclusive<TAB>BYTES<TAB>COUNT<TAB>NAME   each distinct method name of a tick's stack
    //                                            counted once for that tick (frames with no
    //                                            method are not counted here)
    //   stack<TAB>BYTES<TAB>COUNT<TAB>name|name|...  the ticks with a stack by the names of
    //                                            their frames that have a method, leaf first
    //                                            ("?" when none has one); sorted (ordinal)
    //   trigger<TAB>COUNT<TAB>reason|name|name...  GCTriggered events (id 35) by their reason
    //                                            (GCReason's name) and the names of their frames
    //                                            that have a method ("?" none, "(no stack)")
    //   sample<TAB>MSEC<TAB>AMOUNT<TAB>TYPENAME<TAB>frame|frame|...   the first 20 ticks with a
    //                                            stack, leaf first; frame = FullMethodName or
    //                                            "MODULE!?" ("?" with no module), then "@0x" + hex
    // exclusive and inclusive lines sorted by NAME (ordinal). BYTES is AllocationAmount64
    // (AllocationAmount for event versions < 2). How the addresses resolved goes to stderr.

    const int AllocSampleCount = 20;

    sealed class AllocAgg { public long Bytes; public long Count; }

    static void AllocAdd(SortedDictionary<string, AllocAgg> d, string name, long bytes)
    {
        if (!d.TryGetValue(name, out var a)) d[name] = a = new AllocAgg();
        a.Bytes += bytes;
        a.Count++;
    }

    static void AllocStacks(string path, TextWriter w)
    {
        string etlx = Path.Combine(Path.GetTempPath(), "oracle-" + Environment.ProcessId + "-" + Guid.NewGuid().ToString("N") + ".etlx");
        long ticks = 0, withStack = 0, frames = 0, resolved = 0;
        long withModule = 0, withBoth = 0, withNeither = 0, moduleOnly = 0;
        var exclusive = new SortedDictionary<string, AllocAgg>(StringComparer.Ordinal);
        var inclusive = new SortedDictionary<string, AllocAgg>(StringComparer.Ordinal);
        var paths = new SortedDictionary<string, AllocAgg>(StringComparer.Ordinal);
        var triggers = new SortedDictionary<string, AllocAgg>(StringComparer.Ordinal);
        var framePath = new StringBuilder(1024);
        var samples = new List<string>();
        var addresses = new HashSet<(int, ulong)>();
        var unresolvedAddresses = new HashSet<(int, ulong)>();
        var unresolvedByModule = new SortedDictionary<string, long>(StringComparer.Ordinal);
        var resolvedByModule = new SortedDictionary<string, long>(StringComparer.Ordinal);
        int maxDepth = 0, methodCount = 0, moduleFileCount = 0, codeAddressCount = 0;
        try
        {
            Microsoft.Diagnostics.Tracing.Etlx.TraceLog.CreateFromEventPipeDataFile(path, etlx);
            using var log = new Microsoft.Diagnostics.Tracing.Etlx.TraceLog(etlx);
            methodCount = log.CodeAddresses.Methods.Count;
            moduleFileCount = log.ModuleFiles.Count;
            codeAddressCount = log.CodeAddresses.Count;
            var names = new HashSet<string>(StringComparer.Ordinal);
            var sb = new StringBuilder(1024);
            foreach (TraceEvent ev in log.Events)
            {
                if (ev is GCTriggeredTraceData trig && ev.ProviderGuid == ClrTraceEventParser.ProviderGuid
                    && (int)ev.ID == 35)
                {
                    // GCs by what triggered them: the reason, then the frames with a method.
                    var key = new StringBuilder(trig.Reason.ToString());
                    TraceCallStack? ts = trig.CallStack();
                    int named = 0;
                    for (TraceCallStack? f = ts; f != null; f = f.Caller)
                        if (f.CodeAddress.Method != null)
                        {
                            key.Append('|').Append(f.CodeAddress.Method.FullMethodName);
                            named++;
                        }
                    if (named == 0)
                        key.Append('|').Append(ts == null ? "(no stack)" : "?");
                    AllocAdd(triggers, key.ToString(), 0);
                    continue;
                }
                if (ev is not GCAllocationTickTraceData tick
                    || ev.ProviderGuid != ClrTraceEventParser.ProviderGuid || (int)ev.ID != 10)
                    continue;
                ticks++;
                long amount = tick.Version >= 2 ? tick.AllocationAmount64 : tick.AllocationAmount;
                TraceCallStack? stack = tick.CallStack();
                if (stack == null)
                {
                    AllocAdd(exclusive, "(no stack)", amount);
                    continue;
                }
                withStack++;
                bool sample = samples.Count < AllocSampleCount;
                if (sample)
                {
                    sb.Clear();
                    sb.Append("sample\t").Append(tick.TimeStampRelativeMSec.ToString("F6", Inv))
                      .Append('\t').Append(amount.ToString(Inv))
                      .Append('\t').Append(tick.TypeName).Append('\t');
                }
                names.Clear();
                framePath.Clear();
                string? leafName = null;
                int depth = 0;
                for (TraceCallStack? f = stack; f != null; f = f.Caller)
                {
                    depth++;
                    frames++;
                    TraceCodeAddress ca = f.CodeAddress;
                    TraceMethod? m = ca.Method;
                    string module = ca.ModuleName ?? "";
                    bool hasModule = ca.ModuleFile != null;
                    var key = ((int)ca.CodeAddressIndex, (ulong)ca.Address);
                    addresses.Add(key);
                    if (hasModule) withModule++;
                    if (m != null)
                    {
                        resolved++;
                        if (hasModule) withBoth++;
                        string name = m.FullMethodName;
                        leafName ??= name;
                        names.Add(name);
                        if (framePath.Length > 0) framePath.Append('|');
                        framePath.Append(name);
                        resolvedByModule[module] = resolvedByModule.GetValueOrDefault(module) + 1;
                    }
                    else
                    {
                        if (hasModule) moduleOnly++; else withNeither++;
                        unresolvedAddresses.Add(key);
                        unresolvedByModule[module] = unresolvedByModule.GetValueOrDefault(module) + 1;
                    }
                    if (sample)
                    {
                        if (depth > 1) sb.Append('|');
                        if (m != null) sb.Append(m.FullMethodName);
                        else sb.Append(module.Length > 0 ? module : "?").Append("!?");
                        sb.Append("@0x").Append(((ulong)ca.Address).ToString("x", Inv));
                    }
                }
                if (depth > maxDepth) maxDepth = depth;
                AllocAdd(exclusive, leafName ?? "?", amount);
                foreach (string name in names) AllocAdd(inclusive, name, amount);
                AllocAdd(paths, framePath.Length > 0 ? framePath.ToString() : "?", amount);
                if (sample) samples.Add(sb.ToString());
            }
        }
        finally
        {
            try { File.Delete(etlx); } catch (IOException) { }
        }

        w.WriteLine("ticks\t" + ticks.ToString(Inv) + "\twith_stack\t" + withStack.ToString(Inv)
            + "\tframes\t" + frames.ToString(Inv) + "\tresolved\t" + resolved.ToString(Inv));
        foreach (var kv in exclusive)
            w.WriteLine("exclusive\t" + kv.Value.Bytes.ToString(Inv) + "\t" + kv.Value.Count.ToString(Inv) + "\t" + kv.Key);
        foreach (var kv in inclusive)
            w.WriteLine("inclusive\t" + kv.Value.Bytes.ToString(Inv) + "\t" + kv.Value.Count.ToString(Inv) + "\t" + kv.Key);
        foreach (var kv in paths)
            w.WriteLine("stack\t" + kv.Value.Bytes.ToString(Inv) + "\t" + kv.Value.Count.ToString(Inv) + "\t" + kv.Key);
        foreach (var kv in triggers)
            w.WriteLine("trigger\t" + kv.Value.Count.ToString(Inv) + "\t" + kv.Key);
        foreach (string s in samples)
            w.WriteLine(s);

        var e = Console.Error;
        e.WriteLine("allocstacks: " + path);
        e.WriteLine("  tracelog: methods " + methodCount.ToString(Inv) + ", module files " + moduleFileCount.ToString(Inv)
            + ", code addresses " + codeAddressCount.ToString(Inv));
        e.WriteLine("  frames " + frames.ToString(Inv) + " (max depth " + maxDepth.ToString(Inv) + "): with module file "
            + withModule.ToString(Inv) + ", with method " + resolved.ToString(Inv) + " (of which with module file "
            + withBoth.ToString(Inv) + "), module file but no method " + moduleOnly.ToString(Inv)
            + ", neither " + withNeither.ToString(Inv));
        e.WriteLine("  distinct code addresses on tick stacks " + addresses.Count.ToString(Inv)
            + ", of which without method " + unresolvedAddresses.Count.ToString(Inv));
        foreach (var kv in resolvedByModule)
            e.WriteLine("  resolved frames in module '" + kv.Key + "': " + kv.Value.ToString(Inv));
        foreach (var kv in unresolvedByModule)
            e.WriteLine("  unresolved frames in module '" + kv.Key + "': " + kv.Value.ToString(Inv));
    }

    // ------------------------------------------------------------------
    // Minimal JSON writer: invariant, round-trip doubles, NaN/Inf as strings,
    // and "null" for any property whose getter throws.
    // ------------------------------------------------------------------

    sealed class Json
    {
        readonly TextWriter _w;
        readonly Stack<bool> _first = new();
        bool _afterKey;
        int _depth;
        public Json(TextWriter w) { _w = w; }

        void Sep()
        {
            if (_afterKey) { _afterKey = false; return; }
            if (_first.Count > 0)
            {
                if (!_first.Peek()) _w.Write(',');
                _first.Pop();
                _first.Push(false);
                _w.Write('\n');
                _w.Write(new string(' ', 2 * _depth));
            }
        }

        public void BeginObject() { Sep(); _w.Write('{'); _first.Push(true); _depth++; }
        public void EndObject() { _depth--; bool empty = _first.Pop(); if (!empty) { _w.Write('\n'); _w.Write(new string(' ', 2 * _depth)); } _w.Write('}'); }
        public void BeginArray() { Sep(); _w.Write('['); _first.Push(true); _depth++; }
        public void EndArray() { _depth--; bool empty = _first.Pop(); if (!empty) { _w.Write('\n'); _w.Write(new string(' ', 2 * _depth)); } _w.Write(']'); }

        public void Key(string k)
        {
            Sep();
            WriteString(k);
            _w.Write(": ");
            _afterKey = true;
        }

        public void Null() { Sep(); _w.Write("null"); }

        public void Value(object? v)
        {
            Sep();
            switch (v)
            {
                case null: _w.Write("null"); break;
                case string s: WriteString(s); break;
                case bool b: _w.Write(b ? "true" : "false"); break;
                case double d: WriteDouble(d); break;
                case float f: WriteDouble(f); break;
                case Enum e: WriteString(e.ToString()); break;
                case IFormattable fm: _w.Write(fm.ToString(null, Inv)); break;
                default: WriteString(v.ToString() ?? ""); break;
            }
        }

        void WriteDouble(double d)
        {
            if (double.IsNaN(d)) _w.Write("\"NaN\"");
            else if (double.IsPositiveInfinity(d)) _w.Write("\"Infinity\"");
            else if (double.IsNegativeInfinity(d)) _w.Write("\"-Infinity\"");
            else
            {
                string s = d.ToString("R", Inv);
                _w.Write(s);
            }
        }

        void WriteString(string s)
        {
            var sb = new StringBuilder(s.Length + 2);
            AppendQuoted(sb, s);
            _w.Write(sb.ToString());
        }

        public void Prop(string k, object? v) { Key(k); Value(v); }

        public void Prop<T>(string k, Func<T> get)
        {
            object? v;
            try { v = get(); } catch (Exception) { v = null; }
            Key(k);
            Value(v);
        }

        public void Array5(string k, Func<int, double> get)
        {
            Key(k);
            BeginArray();
            for (int i = 0; i < 5; i++)
            {
                object? v;
                try { v = get(i); } catch (Exception) { v = null; }
                Value(v);
            }
            EndArray();
        }
    }
}
