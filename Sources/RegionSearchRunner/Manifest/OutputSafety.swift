import RegionSearchCore
import RegionSearchIngest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Refuses to write a result over a file the run reads: an input, the manifest itself, a truth
/// file, or the work directory's own state. A manifest whose `output` names its input CSV would
/// otherwise replace the data with GeoJSON and exit 0.
///
/// Files are compared by what they are, not by how they are spelt: symbolic links are resolved
/// (`realpath` of the file, or of its directory when it does not exist yet) and existing files
/// are also compared by device and inode, so a hard link is caught too. ``RunInventory`` lists
/// what a run writes and checks it with these identities when the manifest is loaded (exit
/// status 2, before anything runs); every writer of a final output (the runner's publish step,
/// the experiment tables) checks again.
public enum OutputSafety {
    /// A file that must not be written, and why (`inputs[0]`, `the manifest`).
    public struct Protected: Sendable, Equatable {
        public var path: String
        public var role: String

        public init(path: String, role: String) {
            self.path = path
            self.role = role
        }
    }

    /// An output that would overwrite a protected file (exit status 2).
    public struct Violation: ExitCoded, Equatable {
        /// The output as written in the manifest (absolute).
        public var output: String
        public var protected: Protected

        public var description: String {
            "\(output) would overwrite \(protected.role) (\(protected.path)); choose another output path"
        }

        public var exitStatus: ExitStatus { .usage }
    }

    /// Throws when any of `targets` is (or, for a directory, holds) one of `protected`.
    public static func check(writing targets: [String], protected: [Protected]) throws(Violation) {
        let identities = protected.map { (file: $0, id: Identity(of: $0.path)) }
        for target in targets {
            let t = Identity(of: target)
            for p in identities where t.same(as: p.id) {
                throw Violation(output: target, protected: p.file)
            }
        }
    }

    /// The files `manifest`'s run reads or keeps its state in: its inputs (every input set of an
    /// experiment), truth files, the manifest and the work directory's lock and run state.
    public static func protectedFiles(of manifest: Manifest) -> [Protected] {
        var out: [Protected] = [
            Protected(path: manifest.directory + "/" + AtomicFile.baseName(of: manifest.file), role: "the manifest")
        ]
        var inputs = manifest.inputs
        if let experiment = manifest.experiment { inputs = experiment.inputSets.flatMap(\.inputs) }
        for input in inputs where !InputSpec.isConnectionString(input.path) {
            // A Shapefile or MapInfo input is its sidecars too.
            for file in OpenedInput.sourceFiles(input.path) {
                out.append(Protected(path: file, role: "input \(input.key)"))
            }
        }
        for (set, truth) in manifest.experiment?.truths ?? [] {
            out.append(Protected(path: truth.regions, role: "experiment.truth.\(set).regions"))
            if let members = truth.members {
                out.append(Protected(path: members, role: "experiment.truth.\(set).members"))
            }
        }
        let work = WorkDirectory(path: manifest.workDirectory)
        out.append(Protected(path: work.lockFile, role: "the work directory's lock file"))
        out.append(Protected(path: work.runState, role: "the work directory's run state"))
        return out
    }

    /// A file's resolved path and, when it exists, its device and inode.
    struct Identity {
        var resolved: String
        var inode: (dev: UInt64, ino: UInt64)?

        init(of path: String) {
            var st = stat()
            if stat(path, &st) == 0 {
                // dev_t is signed on Darwin (FileSignature), unsigned on Linux.
                inode = (UInt64(truncatingIfNeeded: st.st_dev), UInt64(st.st_ino))
            }
            // A published path is a link into its set's folder: it stands where it is (the
            // file it shows is still compared by inode). A user's link to a published path (the
            // output written through it, the set beside the file it points to) stands where that
            // path is, not inside the set it shows.
            let published = PublishedSet.publishedPath(path)
            if PublishedSet.isSetLink(published) {
                resolved = PublishedSet.realPath(PathResolver.normalize(published))
            } else {
                resolved = Self.resolve(path)
            }
        }

        func same(as other: Identity) -> Bool {
            if let a = inode, let b = other.inode { return a == b }
            return resolved == other.resolved
        }

        /// Whether this path lies inside the folder `other` (by resolved paths).
        func isInside(_ other: Identity) -> Bool {
            resolved.hasPrefix(other.resolved == "/" ? "/" : other.resolved + "/")
        }

        /// `realpath` of the path, or of its deepest existing ancestor with the rest appended.
        static func resolve(_ path: String) -> String { PathResolver.resolvingLinks(path) }
    }
}
