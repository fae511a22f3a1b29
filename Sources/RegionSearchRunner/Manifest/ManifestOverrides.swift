import RegionSearchCore
import RegionSearchIngest
import RegionSearchStages

/// Command-line overrides of a manifest for one run (`regionsearch run|status … --set
/// STAGE.PARAMETER=VALUE --input PATH`): a nightly job points the same manifest at tonight's
/// dump, or tries one parameter, without editing the file. Overrides are validated exactly as
/// the manifest is, and they enter the stage keys like any manifest value.
extension Manifest {
    /// Sets one parameter: `graph.k=10`, `project.crs=EPSG:3067`, `propagate.keywords=cafe,bar`;
    /// the value text is read as on the stage's own command line (`null` restores a default of
    /// none).
    public mutating func override(_ assignment: String) throws(UsageError) {
        guard let eq = assignment.firstIndex(of: "="), let dot = assignment[..<eq].firstIndex(of: ".") else {
            throw UsageError("--set: expected STAGE.PARAMETER=VALUE (e.g. graph.k=10), got \"\(assignment)\"")
        }
        let stageName = String(assignment[..<dot])
        let key = String(assignment[assignment.index(after: dot)..<eq])
        let text = String(assignment[assignment.index(after: eq)...])
        guard let stage = Pipeline.stage(named: stageName) else {
            let names = Pipeline.stages.map(\.name)
            let hint = closestMatch(stageName, in: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("--set \(assignment): unknown stage '\(stageName)'\(hint)")
        }
        guard let spec = stage.parameters.first(where: { $0.key == key }) else {
            let keys = stage.parameters.map(\.key)
            let hint = closestMatch(key, in: keys).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError(
                "--set \(assignment): \(stageName) has no parameter '\(key)'\(hint); parameters: "
                    + keys.joined(separator: ", "))
        }
        let varied = experiment?.axes.flatMap { $0.points.flatMap { $0 } }.contains { $0.key == "\(stageName).\(key)" }
        if varied ?? false {
            throw UsageError("--set \(assignment): \(stageName).\(key) is varied by experiment.grid")
        }
        let value: JSONValue
        if text == "null" && spec.defaultValue == .null {
            value = .null
        } else {
            switch spec.parse([text]) {
            case .success(let v): value = v
            case .failure(let reason): throw UsageError("--set \(assignment): \(reason)")
            }
        }
        var parameters = givenParameters(for: stageName)
        parameters.set(key, value)
        do {
            try stage.validate(parameters)
        } catch {
            throw UsageError("--set \(assignment): \(error.description)")
        }
        setParameters(parameters, for: stageName)
        if key == PropagationOptionsKeys.keywords {
            for k in keywords where k.contains(",") || k.allSatisfy(\.isWhitespace) {
                throw UsageError("--set \(assignment): bad keyword \"\(k)\"")
            }
        }
    }

    /// Points the manifest's inputs, in order, at other files (absolute, or relative to
    /// `directory`, the current directory); each input object keeps its format options. The
    /// number of paths must be the number of inputs.
    public mutating func replaceInputs(_ paths: [String], relativeTo directory: String) throws(UsageError) {
        guard !paths.isEmpty else { return }
        guard experiment == nil else {
            throw UsageError("--input: an experiment names its inputs in experiment.inputs; edit the manifest")
        }
        guard paths.count == inputs.count else {
            throw UsageError(
                "--input given \(paths.count) time(s), but the manifest has \(inputs.count) input(s); "
                    + "give one --input per input, in manifest order")
        }
        for (i, raw) in paths.enumerated() {
            guard !raw.isEmpty else { throw UsageError("--input: expected a path") }
            let absolute = PathResolver.absolute(raw, relativeTo: directory)
            let spec = JSONValue.object(
                (inputs[i].spec.objectValue ?? []).map { $0.0 == "path" ? ("path", .string(absolute)) : $0 })
            do {
                _ = try InputSpec(json: spec, context: inputs[i].key)
            } catch {
                throw UsageError("--input \(raw): \(error.message)")
            }
            inputs[i].path = absolute
            inputs[i].spec = spec
        }
        if let repeated = Manifest.sameFileTwice(inputs) {
            throw UsageError("--input: \(repeated.input.key): \(repeated.reason)")
        }
        do {
            try RunInventory(self).check()
        } catch {
            throw UsageError("--input: \(error.description)")
        }
    }
}

/// Parameter keys the overrides check by name.
private enum PropagationOptionsKeys {
    static let keywords = "keywords"
}
