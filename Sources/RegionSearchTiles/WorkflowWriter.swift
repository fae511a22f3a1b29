import RegionSearchCore
import RegionSearchRunner

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes the engine files of a ``TilePlan``: a Snakefile with a Slurm profile
/// (`profiles/slurm/config.yaml`), or plain `sbatch` job scripts with a submit script that needs
/// no workflow engine. Both run the same five steps (`regionsearch tile STEP`), so they produce
/// the same bytes; both resume by rerunning only the steps whose outputs are missing.
public enum WorkflowWriter {
    public enum Engine: String, CaseIterable, Sendable {
        case snakefile, sbatch
    }

    /// Why a plan cannot be written.
    public struct Refusal: Error, CustomStringConvertible, ExitCoded {
        public var description: String
        public var exitStatus: ExitStatus { .usage }
    }

    /// `path` as one single-quoted POSIX shell word: every byte literal, a `'` written as `'\''`.
    /// Nothing inside single quotes is special to a shell (no `$`, backtick or backslash).
    static func quoted(_ path: String) -> String {
        "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The code points no path in a workflow may hold: C0 and C1 controls, DEL, and the Unicode
    /// line and paragraph separators. A line break (CR alone counts for Python, YAML and many
    /// log readers) would end a comment or a string in any of the files, and the rest cannot be
    /// shown in a log or a message as they are.
    static func forbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// Refuses what no engine file can carry exactly: a control character in any path, a brace in
    /// a file Snakemake watches (it reads `{name}` in a rule's input as a wildcard), a partition
    /// name Slurm would not take. Everything else — quotes, `\`, `$( )`, backticks, `;`, spaces,
    /// any script — is written as data (plan.json, read by the Snakefile) or as a quoted shell
    /// word, and reaches the jobs exactly.
    static func check(_ plan: TilePlan, engine: Engine) throws(Refusal) {
        let named: [(String, String)] =
            [
                ("the manifest", plan.manifest), ("the plan directory", plan.directory),
                ("the directory of the regionsearch executables", plan.toolDirectory),
            ]
            + plan.inputs.dropFirst().enumerated().map { ("inputs[\($0.offset)]", $0.element) }
        for (role, path) in named {
            if let bad = path.unicodeScalars.first(where: forbidden) {
                throw Refusal(
                    description:
                        "\(role) '\(PrintableText.of(path, limit: 300))' holds the control character "
                        + "U+\(hex(bad.value)); a workflow file cannot name it exactly (a line break ends a comment "
                        + "or a string in the Snakefile and the job scripts) — rename or move it")
            }
        }
        if engine == .snakefile {
            // The files the prepare rule lists as its input (the manifest and the file inputs).
            for (role, path) in [named[0]] + named.dropFirst(3) where path.contains("{") || path.contains("}") {
                throw Refusal(
                    description:
                        "\(role) '\(path)' holds a brace; Snakemake reads {name} in a rule's input file as a "
                        + "wildcard, so the prepare rule could not watch it — rename it, or use --emit sbatch")
            }
        }
        let partition = plan.partition
        guard !partition.isEmpty,
            partition.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-"
            })
        else {
            throw Refusal(
                description:
                    "partition '\(PrintableText.of(partition))': expected letters, digits, _ and - (it is written "
                    + "into #SBATCH lines and the Slurm profile)")
        }
    }

    private static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// The files ``write(_:engine:)`` writes for `engine` (plan.json not included), in order.
    public static func paths(_ plan: TilePlan, engine: Engine) -> [String] {
        switch engine {
        case .snakefile:
            return [plan.directory + "/Snakefile", plan.directory + "/profiles/slurm/config.yaml"]
        case .sbatch:
            return TileEstimate.steps.map { plan.directory + "/sbatch/\($0).sbatch" } + [plan.directory + "/submit.sh"]
        }
    }

    /// Writes the files of `engine` into the plan's directory; returns their paths. The plan
    /// (plan.json) must be written first: the Snakefile reads every path from it.
    @discardableResult
    public static func write(_ plan: TilePlan, engine: Engine) throws -> [String] {
        try check(plan, engine: engine)
        try FileSystem.createDirectories(plan.directory + "/logs")
        let paths = paths(plan, engine: engine)
        switch engine {
        case .snakefile:
            try AtomicFile.write(self.snakefile(plan), to: paths[0])
            try FileSystem.createDirectories(plan.directory + "/profiles/slurm")
            try AtomicFile.write(slurmProfile(plan), to: paths[1])
        case .sbatch:
            try FileSystem.createDirectories(plan.directory + "/sbatch")
            for (step, path) in zip(TileEstimate.steps, paths) {
                try AtomicFile.write(sbatchScript(plan, step: step), to: path)
                chmod(path, 0o755)
            }
            try AtomicFile.write(submitScript(plan), to: paths[paths.count - 1])
            chmod(paths[paths.count - 1], 0o755)
        }
        return paths
    }

    /// Whether the file at `path` is one a plan wrote: its header (``header(_:comment:)``), or
    /// plan.json's `written_by`, within its first 4 KiB.
    static func isPlanFile(_ path: String) -> Bool {
        // A regular file only (a pipe of that name would block the read; it is no plan's).
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let bytes = try? FileSystem.read(path) else {
            return false
        }
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        return head.contains("Written by 'regionsearch plan'") || head.contains("\"written_by\": \"regionsearch ")
    }

    /// The comment at the top of every file. It names no path: paths are data (plan.json), never
    /// text a reader of the file could take for code.
    static func header(_ plan: TilePlan, comment: String) -> String {
        let version = RegionSearchVersion.current
        let points = groupedCount(plan.estimate.points)
        return """
            \(comment) Written by 'regionsearch plan' (regionsearch \(version)); rerun the plan rather
            \(comment) than editing. Every path (manifest, inputs, this directory, the executables) is in
            \(comment) plan.json beside this file. \(plan.tiles) tiles; sizes estimated for \(points) POIs.
            \(comment) docs/TILES.md describes the steps.

            """
    }

    /// A step's command for a job script: the executable and the plan as quoted shell words.
    static func command(_ plan: TilePlan, _ step: String, tile: String? = nil, threads: String) -> String {
        var c = quoted(plan.toolDirectory + "/regionsearch") + " tile \(step) --plan " + quoted(plan.planPath)
        if let tile { c += " --tile \(tile)" }
        return c + " --threads \(threads)"
    }

    // MARK: Snakemake

    /// The Snakefile. It holds no path: it reads plan.json from its own directory
    /// (`workflow.basedir`) as data, works in the plan directory (`workdir:`), so every rule's
    /// files are relative names written here, and passes the executable, the plan and the log to
    /// the shell through `{params.…:q}` / `{log:q}` (quoted by Snakemake). The parameters come
    /// from functions, whose values Snakemake does not expand as wildcards.
    static func snakefile(_ plan: TilePlan) -> String {
        func resources(_ step: String) -> String {
            let r = plan.estimate.resources(step)
            return "    threads: \(r.threads)\n    resources:\n        mem_mb=\(r.memoryMB),\n"
                + "        runtime=\(r.runtimeMinutes),\n"
        }
        func shell(_ step: String, tile: Bool = false) -> String {
            "        \"{params.tool:q} tile \(step) --plan {params.plan:q}"
                + (tile ? " --tile {wildcards.tile}" : "") + " --threads {threads} 2> {log:q}\"\n"
        }
        let params = """
                params:
                    tool=lambda wildcards: PLAN_TOOL,
                    plan=lambda wildcards: PLAN_FILE,

            """
        let tiles = (0..<plan.tiles).map { "\"\(plan.tileName($0))\"" }.joined(separator: ", ")
        return header(plan, comment: "#") + """
            # Run:   snakemake -s PLAN_DIRECTORY/Snakefile --cores 2
            # Slurm: snakemake -s PLAN_DIRECTORY/Snakefile --profile PLAN_DIRECTORY/profiles/slurm
            # (from any directory: the rules work in the plan directory, .snakemake/ included).

            import json
            import os
            import subprocess
            import sys

            with open(os.path.join(workflow.basedir, "plan.json"), encoding="utf-8") as _plan:
                PLAN = json.load(_plan)
            PLAN_FILE = os.path.join(PLAN["directory"], "plan.json")
            PLAN_TOOL = os.path.join(PLAN["tool_directory"], "regionsearch")

            workdir: PLAN["directory"]

            TILES = [\(tiles)]

            # Snakemake dates files: an input replaced by other data with an older date (cp -p,
            # rsync -t) would keep a stale result. 'regionsearch tile inputs' keeps
            # state/inputs.json, the inputs' content hashes, rewritten only when one changed; the
            # prepare rule depends on it. It runs here, as Snakemake starts and before it looks at
            # any date, in the main process only (a cluster job reads this file again). A failure
            # (an input missing) is said and the start goes on: --unlock, --list and a dry run
            # must work while the data is away, and the prepare rule, which reads the inputs,
            # stops the run itself.
            if workflow.is_main_process:
                _inputs = subprocess.run([PLAN_TOOL, "tile", "inputs", "--plan", PLAN_FILE])
                if _inputs.returncode != 0:
                    print(
                        "regionsearch: warning: 'regionsearch tile inputs' failed with exit status %d "
                        "(its message is above); state/inputs.json is not updated" % _inputs.returncode,
                        file=sys.stderr,
                    )

            rule all:
                input:
                    "state/finished.json",

            # Ingest and project the whole data (CRS, extent, Hilbert order: global). Its input: the
            # manifest and its input files (plan.json's "inputs"), and their content key.
            rule prepare:
                input:
                    PLAN["inputs"],
                    "state/inputs.json",
                output:
                    "state/prepared.json",
                log:
                    "logs/prepare.log",
            \(params)\(resources("prepare"))    shell:
            \(shell("prepare"))
            # One tile of the graph: its rows, certified against every point it did not load.
            rule graph_tile:
                input:
                    "state/prepared.json",
                output:
                    "graph/graph-part-{tile}.rsa",
                log:
                    "logs/graph-{tile}.log",
            \(params)\(resources("graph"))    shell:
            \(shell("graph", tile: true))
            # The graph object (the single run's bytes, in the work directory) and every tile's
            # propagation window (its nodes and iterations + 2 hops around them).
            rule gather_graph:
                input:
                    expand("graph/graph-part-{tile}.rsa", tile=TILES),
                output:
                    "state/graph.json",
                    expand("propagate/window-{tile}.rsa", tile=TILES),
                log:
                    "logs/gather-graph.log",
            \(params)\(resources("gather-graph"))    shell:
            \(shell("gather-graph"))
            # One tile of the propagation: the fixed iteration count over its window.
            rule propagate_tile:
                input:
                    "state/graph.json",
                    "propagate/window-{tile}.rsa",
                output:
                    "propagate/scores-part-{tile}.rsa",
                log:
                    "logs/propagate-{tile}.log",
            \(params)\(resources("propagate"))    shell:
            \(shell("propagate", tile: true))
            # The scores object, then regions, hulls and maps on the whole data: the output.
            rule finish:
                input:
                    expand("propagate/scores-part-{tile}.rsa", tile=TILES),
                output:
                    "state/finished.json",
                log:
                    "logs/finish.log",
            \(params)\(resources("finish"))    shell:
            \(shell("finish"))
            """
    }

    static func slurmProfile(_ plan: TilePlan) -> String {
        var rules = ""
        for (step, rule) in [
            ("prepare", "prepare"), ("graph", "graph_tile"), ("gather-graph", "gather_graph"),
            ("propagate", "propagate_tile"), ("finish", "finish"),
        ] {
            let r = plan.estimate.resources(step)
            rules += "  \(rule):\n    mem_mb: \(r.memoryMB)\n    runtime: \(r.runtimeMinutes)\n"
        }
        return header(plan, comment: "#") + """
            # Snakemake 9 profile for snakemake-executor-plugin-slurm 2.8:
            #   snakemake -s PLAN_DIRECTORY/Snakefile --profile PLAN_DIRECTORY/profiles/slurm
            # Memory (MB) and time (minutes) per rule come from the plan's size estimate; edit them
            # here or with --set-resources RULE:mem_mb=N. Without slurmdbd the plugin's default
            # status check (sacct) never sees a job finish: squeue needs MinJobAge >= 120 s.
            executor: slurm
            jobs: \(max(plan.tiles, 2))
            default-resources:
              slurm_partition: \(plan.partition)
              mem_mb: 1000
              runtime: 30
            set-resources:
            \(rules)slurm-status-command: squeue
            slurm-init-seconds-before-status-checks: 1
            latency-wait: 5
            rerun-incomplete: true

            """
    }

    // MARK: sbatch

    static func sbatchScript(_ plan: TilePlan, step: String) -> String {
        let r = plan.estimate.resources(step)
        let tiled = step == "graph" || step == "propagate"
        let output = tiled ? "logs/%x-%A_%a.out" : "logs/%x-%j.out"
        let run =
            tiled
            ? command(plan, step, tile: "\"$SLURM_ARRAY_TASK_ID\"", threads: "\"${SLURM_CPUS_PER_TASK:-\(r.threads)}\"")
            : command(plan, step, threads: "\"${SLURM_CPUS_PER_TASK:-\(r.threads)}\"")
        return "#!/usr/bin/env bash\n" + """
            #SBATCH --job-name=rs-\(step)
            #SBATCH --partition=\(plan.partition)
            #SBATCH --cpus-per-task=\(r.threads)
            #SBATCH --mem=\(r.memoryMB)M
            #SBATCH --time=\(r.runtimeMinutes)
            #SBATCH --output=\(output)

            """ + header(plan, comment: "#") + """
                # Submitted by submit.sh\(tiled ? " as an array, one task per tile" : ""); runs from the plan directory.
                set -euo pipefail
                exec \(run)

                """
    }

    /// What the steps write in the plan's folders, as shell patterns by folder: `submit.sh
    /// --fresh` removes these and nothing else, and a folder planned into may hold nothing else
    /// (``TilePlanner``): anything else there is the user's.
    static let stepOutputs: [(folder: String, patterns: [String])] = [
        (
            "state",
            ["prepared.json", "graph.json", "finished.json", "inputs.json", "inputs-signatures.json", ".*.tmp-*"]
        ),
        ("graph", ["graph-part-*.rsa", ".graph-part-*.tmp-*"]),
        ("propagate", ["window-*.rsa", "scores-part-*.rsa", ".window-*.tmp-*", ".scores-part-*.tmp-*"]),
    ]

    /// The names in the step folders of `directory` that no step writes (``stepOutputs``), as
    /// `folder/name`.
    static func foreignFiles(in directory: String) -> [String] {
        stepOutputs.flatMap { folder, patterns in
            DirectoryListing.names(directory + "/" + folder).filter { name in
                !patterns.contains { fnmatch($0, name, 0) == 0 }
            }.map { folder + "/" + $0 }
        }
    }

    static func submitScript(_ plan: TilePlan) -> String {
        let last = plan.tiles - 1
        // Unquoted: the shell expands the patterns (one that matches nothing stays as it is, and
        // rm -f passes over it).
        let freshRemoves = stepOutputs.flatMap { folder, patterns in patterns.map { folder + "/" + $0 } }
            .joined(separator: " ")
        return "#!/usr/bin/env bash\n" + header(plan, comment: "#") + """
            # Submits the tiled run as plain Slurm jobs, no workflow engine: prepare, the graph tiles (a
            # job array), gather-graph, the propagate tiles (an array), finish — each waiting for the
            # previous with --dependency=afterok (and --kill-on-invalid-dep=yes, so a failure cancels
            # what depends on it instead of leaving it pending forever).
            #
            # Resuming: run it again. A step whose output exists is not submitted again, and an array
            # holds only the tiles whose part is missing. After changing the manifest or its data, run
            # it with --fresh, which removes this directory's step outputs first (the files the steps
            # write in state, graph and propagate, nothing else).
            #
            # Prints the id of the last job; wait for it with
            #   while squeue -h -j ID | grep -q .; do sleep 1; done
            # and check state/finished.json.
            set -euo pipefail
            cd "$(dirname "$0")"
            if [ "${1:-}" = "--fresh" ]; then
              rm -f \(freshRemoves)
            fi
            mkdir -p logs state graph propagate
            missing() { # missing PREFIX: the tile numbers without PREFIX-NNNN.rsa, comma-separated
              local out="" t
              for t in $(seq 0 \(last)); do
                [ -e "$(printf '%s-%04d.rsa' "$1" "$t")" ] || out="$out${out:+,}$t"
              done
              echo "$out"
            }
            dep=()
            last=""
            submit() { # submit SCRIPT [sbatch options]: submits after the previous job, records its id
              local script=$1
              shift
              last=$(sbatch --parsable "${dep[@]}" "$@" "$script")
              last=${last%%;*}
              dep=(--dependency=afterok:"$last" --kill-on-invalid-dep=yes)
              echo "submitted $script as job $last" >&2
            }
            [ -e state/prepared.json ] || submit sbatch/prepare.sbatch
            tiles=$(missing graph/graph-part)
            [ -z "$tiles" ] || submit sbatch/graph.sbatch --array="$tiles"
            if [ ! -e state/graph.json ] || [ -n "$(missing propagate/window)" ]; then
              submit sbatch/gather-graph.sbatch
            fi
            tiles=$(missing propagate/scores-part)
            [ -z "$tiles" ] || submit sbatch/propagate.sbatch --array="$tiles"
            [ -e state/finished.json ] || submit sbatch/finish.sbatch
            if [ -z "$last" ]; then
              echo "nothing to submit: state/finished.json exists (use --fresh to run again)" >&2
            fi
            echo "$last"

            """
    }
}
