import Foundation

/// The environment `regionsearch run` and the benchmark start stage executables with: this
/// process's own, with glibc's `glibc.malloc.hugetlb=1` tunable added to `GLIBC_TUNABLES` for
/// every stage but those in ``withoutHugePages``.
///
/// The tunable makes malloc ask for transparent huge pages (`madvise(MADV_HUGEPAGE)`) on the
/// memory it maps, so a stage's large columns fill with one page fault per 2 MiB instead of one
/// per 4 KiB. On the project's machine a 4 KiB first touch costs about 5 µs (1.1–1.6 ms per MB,
/// mostly outside the process's CPU time) and a stage at 1M POIs touches 100–400 MB: the graph
/// stage takes 68,900 page faults without it and 7,000 with it. Nothing but speed changes, and
/// a user's own `glibc.malloc.hugetlb` setting is kept.
public enum StageEnvironment {
    /// The tunable added.
    public static let hugePages = "glibc.malloc.hugetlb=1"

    /// Stages started without the tunable. The propagate stage was never measured faster with
    /// it and often slower (BENCHMARKS.md, "The propagate stage without malloc's huge pages"):
    /// with 16 keywords at 1M POIs, 0.90 of the time without it (median of 8 pairs) and 0.35–0.5 s
    /// less in whole runs; at 10M, 4.4–4.5 s alone against 6.1–7.7 s; with 2 keywords the same.
    public static let withoutHugePages: Set<String> = ["propagate"]

    /// `base` (default: this process's environment) with ``hugePages`` in `GLIBC_TUNABLES`.
    public static func forStages(_ base: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var env = base
        let existing = env["GLIBC_TUNABLES"] ?? ""
        if existing.contains("glibc.malloc.hugetlb=") { return env }
        env["GLIBC_TUNABLES"] = existing.isEmpty ? hugePages : existing + ":" + hugePages
        return env
    }

    /// The environment for the stage named `stage` (`ingest`, `propagate`, …): ``forStages(_:)``,
    /// or `base` unchanged for a stage in ``withoutHugePages``.
    public static func forStage(_ stage: String, _ base: [String: String] = ProcessInfo.processInfo.environment)
        -> [String: String]
    {
        withoutHugePages.contains(stage) ? base : forStages(base)
    }
}
