import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchRunner

/// Scores a combination's GeoJSON against its input set's truth with ``Evaluator`` (the library
/// behind `regionsearch-evaluate truth`), and keeps the report in `WORK/scores/<key>.json`.
///
/// The key is a content hash of everything the report depends on: the tool version, the
/// thresholds, and the digests of the regions, the truth polygons, the members files, the
/// must-not file and the POIs (the input set's `pois.rsa` from ingest), and the check settings.
/// A rerun whose GeoJSON did not change therefore reads the report instead of recomputing it.
struct ExperimentScorer {
    let work: WorkDirectory
    let manifestFile: String
    var thresholds = Experiment.thresholds

    static let scheme = "regionsearch experiment score 1"
    /// Added to the key when a truth uses what scheme 1 did not know (several files, must-not, checks).
    static let extendedScheme = "regionsearch experiment score 2"

    /// The scores of `regions` (a verified object file with its digest).
    ///
    /// - Parameters:
    ///   - truthKey: the truth's place in the manifest (`experiment.truth.seed42`), for messages.
    ///   - pois: ingest's `pois.rsa` with its digest; used with members files and for the checks.
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
        let truthDigests = try truth.regionFiles.enumerated().map { i, path in
            try digest(path, truth.regionFiles.count > 1 ? "regions[\(i)]" : "regions")
        }
        let memberDigests = try truth.memberFiles.enumerated().map { i, path in
            try digest(path, truth.memberFiles.count > 1 ? "members[\(i)]" : "members")
        }
        let mustNotDigest = try truth.mustNot.map { try digest($0, "must_not") }
        let checks = truth.checks ? CheckOptions() : nil
        // The POIs are read for POI-level scores (with members) and for the region checks.
        let poiInput = memberDigests.isEmpty && checks == nil ? nil : pois

        var hasher = ContentHasher()
        hasher.update(Self.scheme)
        hasher.update(RegionSearchVersion.current)
        hasher.update(thresholds.map { JSONValue.formatNumber($0) }.joined(separator: ","))
        let firstDigests: [FileDigest?] = [regions.digest, truthDigests[0], memberDigests.first, poiInput?.digest]
        for d in firstDigests {
            hasher.update(d.map { "\($0.hash) \($0.size)" } ?? "-")
        }
        // Only what the first layout did not have, so the keys of earlier experiments stay valid.
        if truthDigests.count > 1 || memberDigests.count > 1 || mustNotDigest != nil || checks != nil {
            hasher.update(Self.extendedScheme)
            for d in truthDigests.dropFirst() + memberDigests.dropFirst() { hasher.update("\(d.hash) \(d.size)") }
            hasher.update(mustNotDigest.map { "must_not \($0.hash) \($0.size)" } ?? "-")
            hasher.update(checks.map { $0.json.serialized() } ?? "-")
        }
        let key = hasher.finalize()
        let path = work.scorePath(key)
        // A user's file under the key's name is neither read nor replaced: the scores are made anew.
        let cache = work.mayWrite(path)

        if cache, let bytes = try? FileSystem.read(path),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            let cached = ExperimentScore(report: json, thresholds: thresholds, checks: checks != nil)
        {
            return (key, cached)
        }

        let report: JSONValue
        do {
            let evaluator = Evaluator(thresholds: thresholds, checks: checks)
            let truthFile = RegionFeatureFile.concatenating(
                try truth.regionFiles.map { try RegionFeatureFile.read(path: $0) })
            let members =
                truth.memberFiles.isEmpty
                ? nil : PlantedMembers.concatenating(try truth.memberFiles.map { try PlantedMembers.read(path: $0) })
            let result = try evaluator.scoreTruth(
                regions: RegionFeatureFile.read(path: regions.path), truth: truthFile,
                pois: try poiInput.map { try EvaluationPOIs.load(path: $0.path) }, members: members,
                mustNot: try truth.mustNot.map { try RegionFeatureFile.read(path: $0) })
            report = result.json
        } catch {
            throw ExperimentError.scoring(combination: combination, underlying: error)
        }
        guard let score = ExperimentScore(report: report, thresholds: thresholds, checks: checks != nil) else {
            throw ToolFailure(
                "internal error: the truth report of \(combination) lacks a metric", status: .internalError)
        }
        guard cache else { return (key, score) }
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
