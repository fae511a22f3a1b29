import RegionSearchCore
import RegionSearchGDAL
import RegionSearchIngest
import RegionSearchMaps
import RegionSearchOutput

/// Every file and folder a run of a manifest writes, and every file it reads or keeps its state
/// in — one list, checked once against itself.
///
/// Written: the regions output and the POI layer with a Shapefile's sidecars and the `.qml`
/// styles, the maps beside the output (`.png .svg .html .pdf`), the change reports and the
/// lineage file, the folder of published sets
/// (``PublishedSet``), and for an experiment each combination's GeoJSON (and maps), the results
/// tables and the plots. Kept by the runner: the work directory's `lock`, `run.json`,
/// `published.json`, `builds.json` and its folders (`objects/` with every stage's outputs and rejects,
/// `records/`, `runs/`, `scores/`, `maps/`, `manifests/`, `failed/`). Read: every input (a
/// Shapefile's sidecars too), the manifest, truth files.
///
/// ``check()`` refuses (exit status 2, before anything runs, and again just before the outputs
/// are written) a written file that is a read file or one of the runner's, a written file inside
/// one of the runner's folders (an output in `WORK/objects/` would overwrite an artifact), a file
/// read inside a folder the run rewrites, and two written files that are one file (the regions'
/// and the POI layer's `.qml`; a map over the POI layer). Files are compared by what they are:
/// symbolic and hard links and `..` are resolved (``OutputSafety``).
public struct RunInventory {
    /// A file or folder the run writes, and what it is for messages (`output`, `the map r.png`).
    public struct Entry: Sendable, Equatable {
        public var path: String
        public var role: String
        /// A folder whose whole content the run manages (never a user's file inside).
        public var isTree: Bool

        public init(path: String, role: String, isTree: Bool = false) {
            self.path = path
            self.role = role
            self.isTree = isTree
        }
    }

    public let manifest: Manifest
    /// What the run writes: its outputs, their sidecars, maps and published sets.
    public private(set) var written: [Entry]
    /// What the run reads or keeps its state in (files and the runner's folders).
    public let kept: [Entry]

    public init(_ manifest: Manifest) {
        self.manifest = manifest
        written = Self.writtenEntries(manifest)
        kept =
            OutputSafety.protectedFiles(of: manifest).map { Entry(path: $0.path, role: $0.role) }
            + Self.workEntries(WorkDirectory(path: manifest.workDirectory))
    }

    /// The files and folders of the work directory the runner writes.
    static func workEntries(_ work: WorkDirectory) -> [Entry] {
        [
            Entry(path: work.path + "/published.json", role: "the work directory's publish record"),
            Entry(path: work.builds, role: "the work directory's record of the stage executables' builds"),
            Entry(path: work.objects, role: "the work directory's objects (stage outputs)", isTree: true),
            Entry(path: work.records, role: "the work directory's run records", isTree: true),
            Entry(path: work.runs, role: "the work directory's combination states", isTree: true),
            Entry(path: work.scores, role: "the work directory's scores", isTree: true),
            Entry(path: work.maps, role: "the work directory's map records", isTree: true),
            Entry(path: work.manifestStates, role: "the work directory's manifest states", isTree: true),
            Entry(path: work.failed, role: "the work directory's failed stage files", isTree: true),
            Entry(path: work.lineage, role: "the work directory's lineage results", isTree: true),
        ]
    }

    /// Everything a run of `manifest` writes outside the work directory.
    static func writtenEntries(_ manifest: Manifest) -> [Entry] {
        var out: [Entry] = []
        if let experiment = manifest.experiment {
            let dir = manifest.output
            for c in experiment.combinations {
                out.append(Entry(path: dir + "/" + c.fileName, role: "combination \(c.name)'s GeoJSON"))
                for map in MapPublisher(manifest: manifest.variant(for: c), work: WorkDirectory(path: "")).paths {
                    out.append(Entry(path: map, role: "the map \(AtomicFile.baseName(of: map))"))
                }
            }
            for name in ["results.csv", "results.md"] { out.append(Entry(path: dir + "/" + name, role: name)) }
            for name in experiment.plotNames {
                for ext in ["png", "svg"] {
                    out.append(Entry(path: dir + "/" + name + "." + ext, role: "the plot \(name).\(ext)"))
                }
            }
            return out
        }
        var first: OutputTarget?
        for target in manifest.outputTargets {
            let key = target.role.rawValue
            // A POI layer in the regions' GeoPackage is the same file on purpose.
            if target.role == .pois, target.sharesDestination(with: manifest.outputTarget) { continue }
            guard !target.files.isEmpty else { continue }
            let main = target.format == .shapefile ? AtomicVectorFile.fileSet(of: target.path) : [target.path]
            for file in main {
                let role = file == target.path ? key : "\(key)'s Shapefile sidecar \(AtomicFile.baseName(of: file))"
                out.append(Entry(path: file, role: role))
            }
            if target.format.hasStyleSidecar && target.styleSidecar {
                out.append(Entry(path: VectorOutput.styleSidecar(of: target.path), role: "\(key)'s QGIS style"))
            }
            if first == nil && !target.files.isEmpty { first = target }
        }
        for map in MapPublisher(manifest: manifest, work: WorkDirectory(path: "")).paths {
            out.append(Entry(path: map, role: "the map \(AtomicFile.baseName(of: map))"))
        }
        for path in LineageStep.changesPaths(manifest) {
            out.append(Entry(path: path, role: "the change report \(AtomicFile.baseName(of: path))"))
        }
        if manifest.lineage.enabled {
            out.append(Entry(path: LineageStep.lineagePath(manifest), role: "the lineage file"))
        }
        if let root = PublishedSet.root(of: manifest) {
            out.append(
                Entry(
                    path: root, role: "the published sets of \(AtomicFile.baseName(of: first?.path ?? ""))",
                    isTree: true)
            )
        }
        return out
    }

    /// A conflict in the inventory (exit status 2).
    public struct Conflict: ExitCoded, Equatable {
        public var path: String
        public var role: String
        public var other: Entry
        /// `overwrite` (the same file), `inside` (a file in a managed folder), `holds` (a folder
        /// the run rewrites holds a file it reads), `another's` (a link to another manifest's
        /// published output).
        public var relation: String

        public var description: String {
            switch relation {
            case "inside":
                return "\(role) \(path) is inside \(other.role) (\(other.path)), which the runner manages; choose "
                    + "another output path"
            case "another's":
                return "\(role) \(path) is a link to \(other.path), which \(other.role) publishes: this run would "
                    + "replace that manifest's set and end its lineage; give each manifest its own output"
            case "holds":
                return "\(role) \(path) holds \(other.role) (\(other.path)), which it would overwrite; move that file "
                    + "or choose another output path"
            default:
                return "\(role) \(path) would overwrite \(other.role) (\(other.path)); choose another output path"
            }
        }

        public var exitStatus: ExitStatus { .usage }
    }

    /// Checks the inventory with `extra` written besides the run's own files (the workflow files
    /// `regionsearch plan` writes for the run).
    public func check(alsoWriting extra: [Entry]) throws(Conflict) {
        var inventory = self
        inventory.written += extra
        try inventory.check()
    }

    /// Checks the inventory (see the type's documentation).
    public func check() throws(Conflict) {
        // An output that is a user's link to another manifest's published output is written
        // through to that manifest's set, which would lose its lineage file (its path is beside
        // the link, not in the set) and start afresh on its next night. (Naming that output
        // directly is warned about when publishing; its lineage file is then the same file.)
        for target in manifest.outputTargets where !target.files.isEmpty {
            let published = PublishedSet.publishedPath(target.path)
            guard published != target.path, PublishedSet.isSetLink(published),
                let owner = PublishedSet(root: PublishedSet.root(besides: published)).current()?.record.manifest,
                ManifestOwner(manifest).relation(to: owner) == .other
            else { continue }
            throw Conflict(
                path: target.path, role: target.role.rawValue,
                other: Entry(path: published, role: "the manifest \(owner)"), relation: "another's")
        }
        let read = kept.map { (entry: $0, id: OutputSafety.Identity(of: $0.path)) }
        let mine = written.map { (entry: $0, id: OutputSafety.Identity(of: $0.path)) }
        for (k, w) in mine.enumerated() {
            for r in read {
                if !w.entry.isTree && !r.entry.isTree && w.id.same(as: r.id) {
                    throw Conflict(path: w.entry.path, role: w.entry.role, other: r.entry, relation: "overwrite")
                }
                if r.entry.isTree && (w.id.isInside(r.id) || w.id.resolved == r.id.resolved) {
                    throw Conflict(path: w.entry.path, role: w.entry.role, other: r.entry, relation: "inside")
                }
                if w.entry.isTree && !r.entry.isTree && r.id.isInside(w.id) {
                    throw Conflict(path: w.entry.path, role: w.entry.role, other: r.entry, relation: "holds")
                }
            }
            for o in mine[(k + 1)...] {
                if !w.entry.isTree && !o.entry.isTree && w.id.same(as: o.id) {
                    throw Conflict(path: o.entry.path, role: o.entry.role, other: w.entry, relation: "overwrite")
                }
                // A file at a managed folder's own path is inside it too (a POI layer named as the
                // published sets' folder passed the first run's check and failed after its stages).
                if w.entry.isTree && (o.id.isInside(w.id) || o.id.resolved == w.id.resolved) {
                    throw Conflict(path: o.entry.path, role: o.entry.role, other: w.entry, relation: "inside")
                }
                if o.entry.isTree && (w.id.isInside(o.id) || w.id.resolved == o.id.resolved) {
                    throw Conflict(path: w.entry.path, role: w.entry.role, other: o.entry, relation: "inside")
                }
            }
        }
    }
}
