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
///
/// **Nothing is trusted unchecked.** GDAL 3.6's `GDALClose` returns nothing and some drivers
/// (LIBKML, on a full disk) lose write errors, so before anything is renamed into place every
/// produced file is `fsync`ed and closed with both results checked, and the dataset is opened
/// again read-only with its own driver: it must open, and each layer must hold as many features
/// as were written (``write(_:srs:)``). A file that fails is never published.
public final class AtomicVectorFile {
    /// The final path (symbolic links already resolved by the caller).
    public let destination: String
    /// The dataset to fill (created in the temporary directory).
    public let dataset: GDALDataset
    public let format: VectorFormat
    private let temporaryDirectory: String
    private var finished = false
    /// Layers written through ``write(_:srs:)`` and their feature counts, checked when the file
    /// is read back.
    private var layersWritten: [(name: String, count: Int)] = []
    /// Whether a caller filled a layer of ``createLayer(_:srs:extraOptions:)`` itself (then
    /// only whether the file opens can be checked).
    private var uncountedLayers = false

    /// Creates the temporary directory beside `destination` (or in `temporaryParent`) and the
    /// dataset in it.
    public init(_ destination: String, format: VectorFormat, temporaryParent: String? = nil) throws(GDALError) {
        self.destination = destination
        self.format = format
        let name = AtomicFile.baseName(of: destination)
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
        uncountedLayers = true
        return try makeLayer(schema, srs: srs, extraOptions: extraOptions)
    }

    private func makeLayer(_ schema: LayerSchema, srs: SpatialReference?, extraOptions: [String] = [])
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
        let created = try makeLayer(layer.schema, srs: srs)
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
        layersWritten.append((layer.schema.name, layer.count))
        // What the driver changed without failing is said, not dropped: a Shapefile cuts a text
        // value at 254 bytes (a long POI name), with a warning.
        for warning in dataset.takeWarnings() {
            // The start and the end of a long message: GDAL quotes the whole value it cut.
            let text = PrintableText.of(warning.text, limit: 100_000)
            let shown = text.count <= 300 ? text : text.prefix(80) + "…" + text.suffix(160)
            Log.warning("\(AtomicFile.baseName(of: destination)), layer \(layer.schema.name): GDAL: \(shown)")
        }
    }

    /// The files the driver produced, main file last (call after closing).
    private func producedFiles() throws(GDALError) -> [String] {
        let produced = DirectoryListing.names(temporaryDirectory)
        let main = AtomicFile.baseName(of: destination)
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
            let stem = Self.stem(AtomicFile.baseName(of: destination))
            for ext in Self.sidecarExtensions where !produced.contains(stem + ext) {
                unlink(parent + "/" + stem + ext)
            }
        }
        rmdir(temporaryDirectory)
        finished = true
        do {
            try AtomicFile.syncDirectory(parent)
        } catch {
            throw .fileSystem("\(error)")
        }
        return placed
    }

    /// Closes the dataset and `fsync`s what it produced, leaving it in the temporary directory;
    /// returns the main file's path there (for streaming it into a pipe or device).
    public func finishInPlace() throws(GDALError) -> String {
        try closeAndSync()
        return temporaryDirectory + "/" + AtomicFile.baseName(of: destination)
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
            // Durable contents before the renames make them visible; every result checked.
            for name in DirectoryListing.names(temporaryDirectory) {
                try Self.sync(temporaryDirectory + "/" + name)
            }
            try readBack()
        } catch {
            discard()
            throw error
        }
    }

    /// `fsync` and `close` of one produced file, each result checked.
    static func sync(_ path: String) throws(GDALError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fileSystem("cannot open \(path) to sync it: \(String(cString: strerror(errno)))") }
        if fsync(fd) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .fileSystem("fsync of \(path) failed: \(reason)")
        }
        if close(fd) != 0 { throw .fileSystem("close of \(path) failed: \(String(cString: strerror(errno)))") }
    }

    /// Opens the closed dataset again with its driver and counts its features: a file the
    /// driver left short (LIBKML on a full disk ends mid-element) does not open, or holds fewer.
    private func readBack() throws(GDALError) {
        let main = temporaryDirectory + "/" + AtomicFile.baseName(of: destination)
        let reopened: GDALDataset
        do {
            reopened = try GDALDataset(openingVector: main, allowedDrivers: [format.driver])
        } catch {
            throw .fileSystem(
                "the \(format.driver) file just written does not open again (\(error)); a full disk or a failed "
                    + "write left it incomplete, so it is not published")
        }
        defer { try? reopened.close() }
        if uncountedLayers { return }
        // By name (a GeoPackage also holds layer_styles); a Shapefile or FlatGeobuf names its one
        // layer after the file.
        var counts: [(Int64, Int)] = []
        for (name, written) in layersWritten {
            guard let layer = try? reopened.layer(named: name) else {
                counts = []
                break
            }
            counts.append((layer.featureCount, written))
        }
        if counts.isEmpty && layersWritten.count == 1 && reopened.layerCount == 1 {
            counts = [(try reopened.layer(at: 0).featureCount, layersWritten[0].count)]
        }
        guard counts.count == layersWritten.count else {
            throw .fileSystem(
                "the \(format.driver) file just written lacks a layer (it has \(reopened.layerNames)); a full disk or a "
                    + "failed write left it incomplete, so it is not published")
        }
        for (found, written) in counts where found != Int64(written) {
            throw .fileSystem(
                "the \(format.driver) file just written holds \(found) features, not the \(written) written; a full "
                    + "disk or a failed write left it incomplete, so it is not published")
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

    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
