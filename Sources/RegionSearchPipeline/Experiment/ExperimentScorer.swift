import RegionSearchCore
import RegionSearchEvaluation

/// Scores a combination's GeoJSON against its input set's truth with ``Evaluator`` (the library
/// behind `regionsearch-evaluate truth`), and keeps the report in `WORK/scores/<key>.json`.
///
/// The key is a content hash of everything the report depends on: the tool version, the
/// thresholds, and the digests of the regions, the truth polygons, the members file and the POIs
/// (the input set's `pois.rsa` from ingest). A rerun whose GeoJSON did not change therefore
/// reads the report instead of recomputing it.
struct ExperimentScorer {
    let work: WorkDirectory
    let manifestFile: String
    var thresholds = Experiment.thresholds

    static let scheme = "regionsearch experiment score 1"

    /// The scores of `regions` (a verified object file with its digest).
    ///
    /// - Parameters:
    ///   - truthKey: the truth's place in the manifest (`experiment.truth.seed42`), for messages.
    ///   - pois: ingest's `pois.rsa` with its digest; used only with a members file.
    func score(
        combination: String, regions: (path: String, digest: FileDigest), truth: Experiment.Truth, truthKey: String,
        pois: (path: String, digest: FileDigest)?
    ) throws -> (key: ContentHash, score: ExperimentScore) {
        func digest(_ path: String, _ member: String) throws -> FileDigest {
            do {
                return try FileDigest.of(path: path)
            } catch {
                throw ExperimentError.truthUnreadable(
                    manifest: manifestFile, key: "\(truthKey).\(member)", failure: error)
            }
        }
        let truthDigest = try digest(truth.regions, "regions")
        let members = try truth.members.map { ($0, try digest($0, "members")) }
        let poiInput = members == nil ? nil : pois

        var hasher = ContentHasher()
        hasher.update(Self.scheme)
        hasher.update(RegionSearchVersion.current)
        hasher.update(thresholds.map { JSONValue.formatNumber($0) }.joined(separator: ","))
        for d in [regions.digest, truthDigest, members?.1, poiInput?.digest] {
            hasher.update(d.map { "\($0.hash) \($0.size)" } ?? "-")
        }
        let key = hasher.finalize()
        let path = work.scorePath(key)

        if let bytes = try? FileSystem.read(path),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            let cached = ExperimentScore(report: json, thresholds: thresholds)
        {
            return (key, cached)
        }

        let report: JSONValue
        do {
            let evaluator = Evaluator(thresholds: thresholds)
            let result = try evaluator.scoreTruth(
                regions: RegionFeatureFile.read(path: regions.path), truth: RegionFeatureFile.read(path: truth.regions),
                pois: try poiInput.map { try EvaluationPOIs.load(path: $0.path) },
                members: try members.map { try PlantedMembers.read(path: $0.0) })
            report = result.json
        } catch {
            throw ExperimentError.scoring(combination: combination, underlying: error)
        }
        guard let score = ExperimentScore(report: report, thresholds: thresholds) else {
            throw ToolFailure(
                "internal error: the truth report of \(combination) lacks a metric", status: .internalError)
        }
        do {
            try FileSystem.createDirectories(work.scores)
            try AtomicFile.write(report.serialized(pretty: true) + "\n", to: path)
        } catch let e as FileSystem.Failure {
            throw RunnerError.fileSystem(e)
        } catch {
            throw RunnerError.fileSystem(.init(path: path, operation: "write scores", reason: "\(error)"))
        }
        return (key, score)
    }
}
