import RegionSearchCore

extension Runner {
    /// The map files this run writes beside its output (none when the manifest turns maps off).
    var mapPaths: [String] { MapPublisher(manifest: manifest, work: work).paths }

    /// The paths of the files the run publishes as its set (``PublishedSet``), each replaced by a
    /// link into the set: the files of every output published there (with their styles and a
    /// Shapefile's parts), the maps, and the lineage files when they go with the set. None when
    /// no output is a file of a set.
    var setMemberPaths: [String] {
        guard PublishedSet.root(of: manifest) != nil else { return [] }
        // Named after the file the output's path leads to, as ``Publisher`` publishes them: a
        // style or a Shapefile's parts go beside the resolved main file, not beside a user's link.
        let outputs = manifest.outputTargets.filter(PublishedSet.isPublished).flatMap { target in
            var resolved = target
            resolved.path = PublishedSet.publishedPath(target.path)
            return resolved.files
        }
        let lineage = LineageStep.isPublishedAsSet(manifest) ? LineageStep.publishedPaths(manifest) : []
        return outputs + mapPaths + lineage
    }
}
