import RegionSearchCore

#if canImport(Glibc)
    import Glibc
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

    /// A path as a single-quoted shell word (plans refuse paths with a single quote).
    static func quoted(_ path: String) -> String { "'" + path + "'" }

    static func check(_ plan: TilePlan, inputs: [String]) throws(Refusal) {
        for p in [plan.manifest, plan.directory, plan.toolDirectory] + inputs
        where p.contains("'") || p.contains("\n") || p.contains("{") || p.contains("}") || p.contains("\"") {
            throw Refusal(
                description:
                    "\(p): workflow files quote paths in shell commands and Python strings; a path with quotes, "
                    + "braces or a newline cannot be written safely — move or rename it")
        }
    }

    /// Writes the files of `engine` into the plan's directory; returns their paths.
    @discardableResult
    public static func write(_ plan: TilePlan, engine: Engine, inputs: [String]) throws -> [String] {
        try check(plan, inputs: inputs)
        try FileSystem.createDirectories(plan.directory + "/logs")
        switch engine {
        case .snakefile:
            let snakefile = plan.directory + "/Snakefile"
            try AtomicFile.write(self.snakefile(plan, inputs: inputs), to: snakefile)
            try FileSystem.createDirectories(plan.directory + "/profiles/slurm")
            let profile = plan.directory + "/profiles/slurm/config.yaml"
            try AtomicFile.write(slurmProfile(plan), to: profile)
            return [snakefile, profile]
        case .sbatch:
            try FileSystem.createDirectories(plan.directory + "/sbatch")
            var written: [String] = []
            for step in TileEstimate.steps {
                let path = plan.directory + "/sbatch/\(step).sbatch"
                try AtomicFile.write(sbatchScript(plan, step: step), to: path)
                chmod(path, 0o755)
                written.append(path)
            }
            let submit = plan.directory + "/submit.sh"
            try AtomicFile.write(submitScript(plan), to: submit)
            chmod(submit, 0o755)
            return written + [submit]
        }
    }

    static func header(_ plan: TilePlan, comment: String) -> String {
        let version = RegionSearchVersion.current
        let points = groupedCount(plan.estimate.points)
        return """
            \(comment) Written by 'regionsearch plan' (regionsearch \(version)); rerun the plan rather
            \(comment) than editing. Manifest: \(plan.manifest); \(plan.tiles) tiles; sizes estimated for
            \(comment) \(points) POIs (\(plan.estimate.source)). docs/TILES.md describes the steps.

            """
    }

    static func command(_ plan: TilePlan, _ step: String, tile: String? = nil, threads: String) -> String {
        var c = quoted(plan.toolDirectory + "/regionsearch") + " tile \(step) --plan " + quoted(plan.planPath)
        if let tile { c += " --tile \(tile)" }
        return c + " --threads \(threads)"
    }

    // MARK: Snakemake

    static func snakefile(_ plan: TilePlan, inputs: [String]) -> String {
        let d = plan.directory
        func resources(_ step: String) -> String {
            let r = plan.estimate.resources(step)
            return "    threads: \(r.threads)\n    resources:\n        mem_mb=\(r.memoryMB),\n"
                + "        runtime=\(r.runtimeMinutes),\n"
        }
        let tiles = (0..<plan.tiles).map { "\"\(plan.tileName($0))\"" }.joined(separator: ", ")
        let raw = ([plan.manifest] + inputs).map { "        \"\($0)\",\n" }.joined()
        return header(plan, comment: "#") + """
            # Run:   snakemake -s \(d)/Snakefile --cores 2
            # Slurm: snakemake -s \(d)/Snakefile --profile \(d)/profiles/slurm

            TILES = [\(tiles)]

            rule all:
                input:
                    "\(d)/state/finished.json",

            # Ingest and project the whole data (CRS, extent, Hilbert order: global).
            rule prepare:
                input:
            \(raw)    output:
                    "\(d)/state/prepared.json",
                log:
                    "\(d)/logs/prepare.log",
            \(resources("prepare"))    shell:
                    "\(command(plan, "prepare", threads: "{threads}")) 2> {log}"

            # One tile of the graph: its rows, certified against every point it did not load.
            rule graph_tile:
                input:
                    "\(d)/state/prepared.json",
                output:
                    "\(d)/graph/graph-part-{tile}.rsa",
                log:
                    "\(d)/logs/graph-{tile}.log",
            \(resources("graph"))    shell:
                    "\(command(plan, "graph", tile: "{wildcards.tile}", threads: "{threads}")) 2> {log}"

            # The graph object (the single run's bytes, in the work directory) and every tile's
            # propagation window (its nodes and iterations + 2 hops around them).
            rule gather_graph:
                input:
                    expand("\(d)/graph/graph-part-{tile}.rsa", tile=TILES),
                output:
                    "\(d)/state/graph.json",
                    expand("\(d)/propagate/window-{tile}.rsa", tile=TILES),
                log:
                    "\(d)/logs/gather-graph.log",
            \(resources("gather-graph"))    shell:
                    "\(command(plan, "gather-graph", threads: "{threads}")) 2> {log}"

            # One tile of the propagation: the fixed iteration count over its window.
            rule propagate_tile:
                input:
                    "\(d)/state/graph.json",
                    "\(d)/propagate/window-{tile}.rsa",
                output:
                    "\(d)/propagate/scores-part-{tile}.rsa",
                log:
                    "\(d)/logs/propagate-{tile}.log",
            \(resources("propagate"))    shell:
                    "\(command(plan, "propagate", tile: "{wildcards.tile}", threads: "{threads}")) 2> {log}"

            # The scores object, then regions, hulls and maps on the whole data: the output.
            rule finish:
                input:
                    expand("\(d)/propagate/scores-part-{tile}.rsa", tile=TILES),
                output:
                    "\(d)/state/finished.json",
                log:
                    "\(d)/logs/finish.log",
            \(resources("finish"))    shell:
                    "\(command(plan, "finish", threads: "{threads}")) 2> {log}"

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
            #   snakemake -s \(plan.directory)/Snakefile --profile \(plan.directory)/profiles/slurm
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

    static func submitScript(_ plan: TilePlan) -> String {
        let last = plan.tiles - 1
        return "#!/usr/bin/env bash\n" + header(plan, comment: "#") + """
            # Submits the tiled run as plain Slurm jobs, no workflow engine: prepare, the graph tiles (a
            # job array), gather-graph, the propagate tiles (an array), finish — each waiting for the
            # previous with --dependency=afterok (and --kill-on-invalid-dep=yes, so a failure cancels
            # what depends on it instead of leaving it pending forever).
            #
            # Resuming: run it again. A step whose output exists is not submitted again, and an array
            # holds only the tiles whose part is missing. After changing the manifest or its data, run
            # it with --fresh, which removes this directory's step outputs first.
            #
            # Prints the id of the last job; wait for it with
            #   while squeue -h -j ID | grep -q .; do sleep 1; done
            # and check state/finished.json.
            set -euo pipefail
            cd "$(dirname "$0")"
            if [ "${1:-}" = "--fresh" ]; then
              rm -rf state graph propagate
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
