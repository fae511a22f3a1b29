import RegionSearchCore

extension Runner {
    /// The map files this run writes beside its output (none when the manifest turns maps off).
    var mapPaths: [String] { MapPublisher(manifest: manifest, work: work).paths }
}
