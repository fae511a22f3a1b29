import RegionSearchCore
import RegionSearchStages

extension Runner {
    /// The map files this run writes beside its output (none when the manifest turns maps off).
    var mapPaths: [String] { MapPublisher(manifest: manifest, work: work).paths }

    /// Writes the maps of the published output (``MapPublisher``), from the verified regions
    /// GeoJSON (the lineage step's) and ingest's POIs, and says what it did.
    func publishMaps(regions: Publisher.Artifact, completed: [String: StagePlanner.Completed]) throws {
        let publisher = MapPublisher(manifest: manifest, work: work)
        guard !publisher.paths.isEmpty else { return }
        let ingest = IngestStage.definition
        var pois: (path: String, digest: FileDigest)?
        if let c = completed[ingest.name], let poisPort = ingest.outputs.first(where: { $0.kind == .pois }),
            let output = c.output(poisPort.fileName)
        {
            pois = (work.path + "/" + c.objectPath + "/" + poisPort.fileName, output.digest)
        }
        let t0 = monotonicSeconds()
        let result = try publisher.publish(regions: (regions.path, regions.digest), pois: pois)
        let names = result.paths.map { PathResolver.baseName($0) }.joined(separator: ", ")
        if result.upToDate {
            Log.info("maps \(names) are up to date")
        } else if result.written.isEmpty {
            Log.info("maps \(names) rendered, unchanged (\(Runner.seconds(monotonicSeconds() - t0)))")
        } else {
            let written = result.written.map { PathResolver.baseName($0) }.joined(separator: ", ")
            Log.info(
                "wrote maps \(written) in \(AtomicFile.directory(of: manifest.output)) "
                    + "(\(Runner.seconds(monotonicSeconds() - t0)))"
            )
        }
    }
}
