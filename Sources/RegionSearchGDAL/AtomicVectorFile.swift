import CGDAL
import Foundation
import RegionSearchCore

/// Writes a vector file (or a Shapefile's set of files) so that readers see either the old
/// output or the complete new one, never a partial file.
///
/// The dataset is created inside a fresh temporary directory next to the destination
/// (`.<name>.tmp-<pid>-<random>/<name>`: same file system, so `rename(2)` is atomic, and the
/// runner's sweep of `.<name>.tmp-*` removes what a killed writer left). ``commit()`` closes the
/// dataset (GeoJSON, FlatGeobuf and Shapefile finish writing in `GDALClose`), `fsync`s every
/// produced file, renames each into the destination directory — sidecars first, the main file
/// last — removes stale sidecars of the previous output, and deletes the temporary directory.
/// Without ``commit()`` (an error) `deinit` closes and deletes everything, leaving the old
/// output untouched.
///
/// Single-file formats (GPKG, FlatGeobuf, KML) are replaced atomically. A Shapefile is a set
/// (`.shp .shx .dbf .prj .cpg`): each rename is atomic, the set is not; `name.shp.zip` (a
/// zipped Shapefile, one file) is replaced as one.
public final class AtomicVectorFile {
    /// The final path (symbolic links already resolved by the caller).
    public let destination: String
    /// The dataset to fill (created in the temporary directory).
    public let dataset: GDALDataset
    public let format: VectorFormat
    private let temporaryDirectory: String
    private var finished = false

    /// Creates the temporary directory beside `destination` (or in `temporaryParent`) and the
    /// dataset in it.
    public init(_ destination: String, format: VectorFormat, temporaryParent: String? = nil) throws(GDALError) {
        self.destination = destination
        self.format = format
        let name = Self.baseName(destination)
        let parent = temporaryParent ?? AtomicFile.directory(of: destination)
        let tmp =
            parent + "/." + name + AtomicFile.temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(tmp, 0o755) == 0 else {
            throw .fileSystem("cannot create \(tmp): \(String(cString: strerror(errno)))")
        }
        temporaryDirectory = tmp
        do {
            dataset = try GDALDataset(creating: tmp + "/" + name, driver: format.driver, options: format.datasetOptions)
        } catch {
            try? FileManager.default.removeItem(atPath: tmp)
            throw error
        }
    }

    deinit {
        if !finished {
            try? dataset.close()
            try? FileManager.default.removeItem(atPath: temporaryDirectory)
        }
    }

    /// Creates a layer with the format's options plus `extraOptions`; refuses field names longer
    /// than dBASE's 10 bytes for Shapefiles (GDAL would truncate them, perhaps into duplicates).
    public func createLayer(_ schema: LayerSchema, srs: SpatialReference?, extraOptions: [String] = [])
        throws(GDALError) -> GDALLayer
    {
        if format.shortFieldNames, let long = schema.fields.first(where: { $0.name.utf8.count > 10 }) {
            throw .invalidArgument(
                "field name '\(long.name)' is longer than 10 bytes, the dBASE limit of \(format.driver)")
        }
        return try dataset.createLayer(schema, srs: srs, options: format.layerOptions + extraOptions)
    }

    /// Creates the layer and writes all its features, inside one transaction when the format
    /// profits from it; stores the layer's QGIS style where the format keeps styles.
    public func write(_ layer: OutputLayer, srs: SpatialReference?) throws(GDALError) {
        let created = try createLayer(layer.schema, srs: srs)
        let transaction = format.batchInTransaction && dataset.supportsTransactions
        if transaction { try dataset.startTransaction() }
        do {
            try layer.write(to: created)
            if let style = layer.style, format.driver == VectorFormat.geoPackage.driver {
                try GeoPackageStyles.add(style, to: dataset)
            }
        } catch {
            if transaction { try? dataset.rollbackTransaction() }
            throw error
        }
        if transaction { try dataset.commitTransaction() }
    }

    /// The files the driver produced, main file last (call after closing).
    private func producedFiles() throws(GDALError) -> [String] {
        let produced = FileSystemList.names(temporaryDirectory)
        let main = Self.baseName(destination)
        guard produced.contains(main) else {
            throw .fileSystem("driver \(format.driver) produced \(produced), not \(main)")
        }
        return produced.filter { $0 != main } + [main]
    }

    /// Finishes the dataset and moves its files into place (see the type's documentation).
    /// - Returns: the files now at the destination, main file last.
    @discardableResult
    public func commit() throws(GDALError) -> [String] {
        try closeAndSync()
        let parent = AtomicFile.directory(of: destination)
        let produced = try producedFiles()
        var placed: [String] = []
        for name in produced {
            let target = parent + "/" + name
            guard rename(temporaryDirectory + "/" + name, target) == 0 else {
                let reason = String(cString: strerror(errno))
                throw .fileSystem("cannot rename the new output into \(target): \(reason)")
            }
            placed.append(target)
        }
        // Sidecars of the previous output that the new one lacks (an old .qix), removed after
        // the new set is in place.
        if produced.count > 1 {
            let stem = Self.stem(Self.baseName(destination))
            for ext in Self.sidecarExtensions where !produced.contains(stem + ext) {
                unlink(parent + "/" + stem + ext)
            }
        }
        rmdir(temporaryDirectory)
        finished = true
        AtomicFile.syncDirectory(parent)
        return placed
    }

    /// Closes the dataset and `fsync`s what it produced, leaving it in the temporary directory;
    /// returns the main file's path there (for streaming it into a pipe or device).
    public func finishInPlace() throws(GDALError) -> String {
        try closeAndSync()
        return temporaryDirectory + "/" + Self.baseName(destination)
    }

    /// Deletes the temporary directory (after ``finishInPlace()``).
    public func discard() {
        try? dataset.close()
        try? FileManager.default.removeItem(atPath: temporaryDirectory)
        finished = true
    }

    private func closeAndSync() throws(GDALError) {
        precondition(!finished, "AtomicVectorFile finished twice")
        do {
            try dataset.close()
        } catch {
            discard()
            throw error
        }
        // Durable contents before the renames make them visible.
        for name in FileSystemList.names(temporaryDirectory) {
            let fd = open(temporaryDirectory + "/" + name, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                fsync(fd)
                close(fd)
            }
        }
    }

    /// Shapefile sidecars, removed when the new output lacks them.
    static let sidecarExtensions = [".shx", ".dbf", ".prj", ".cpg", ".qix", ".sbn", ".sbx", ".shp.xml"]

    /// The files a Shapefile-like output consists of (the main file and its possible sidecars).
    public static func fileSet(of path: String) -> [String] {
        guard path.lowercased().hasSuffix(".shp") else { return [path] }
        let stem = String(path.dropLast(4))
        return [path] + sidecarExtensions.map { stem + $0 }
    }

    static func baseName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }

    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}

/// Directory listing on plain POSIX calls (sorted bytewise).
enum FileSystemList {
    static func names(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
