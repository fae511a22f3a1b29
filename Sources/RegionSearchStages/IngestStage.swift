import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchModel

/// The `ingest` stage: reads POI files (delimited text, GeoJSON, OSM PBF/XML, optionally
/// gzip-compressed), validates them and writes the `pois` artifact and a rejects file.
public enum IngestStage {
    static let inputSpecOption = CommandSpec.Option(
        "input-spec", .text, repeatable: true, placeholder: "JSON",
        help:
            "One input as a JSON object with the keys of a manifest input (path, format, delimiter, header, columns, "
            + "crs, …; see docs/INGEST.md). Read after the positional FILEs.")
    static let formatOption = CommandSpec.Option(
        "format", .choice(InputSpec.Format.allCases.map(\.rawValue)),
        default: .value(.string(InputSpec.Format.auto.rawValue)),
        help:
            "Input format of the FILEs (auto: detected from the content); ogr reads anything GDAL opens "
            + "(GeoPackage, Shapefile, FlatGeobuf, KML, GML, GPX, MapInfo, PG:...).")
    static let layerOption = CommandSpec.Option(
        "layer", .text, default: .computed("the first"), placeholder: "NAME", help: "OGR input: the layer to read.")
    static let sqlOption = CommandSpec.Option(
        "sql", .text, placeholder: "SQL", help: "OGR input: read the result of this SQL statement instead of a layer.")
    static let whereOption = CommandSpec.Option(
        "where", .text, placeholder: "EXPR", help: "OGR input: attribute filter on the layer (OGR SQL WHERE syntax).")
    static let sourceCRSOption = CommandSpec.Option(
        "source-crs", .text, placeholder: "CRS",
        help: "OGR input: the CRS of a layer that declares none (EPSG:3067, WKT or PROJ); a declared CRS is used as is."
    )
    static let openOptionOption = CommandSpec.Option(
        "open-option", .text, repeatable: true, placeholder: "KEY=VALUE",
        help: "OGR input: a driver open option, e.g. X_POSSIBLE_NAMES=lon for CSV.")
    static let delimiterOption = CommandSpec.Option(
        "delimiter", .text, default: .computed("sniffed from the first line among , tab | ;"), placeholder: "CHAR",
        help: "Field delimiter: one ASCII character or tab, comma, pipe, semicolon, space.")
    static let quoteOption = CommandSpec.Option(
        "quote", .text, default: .value(.string("\"")), placeholder: "CHAR", help: "Quote character ('' for none).")
    static let headerOption = CommandSpec.Option(
        "header", .choice(["true", "false", "auto"]), default: .value(.string("auto")),
        help:
            "Whether the first line names the columns (auto: yes when columns are named or guessed, else when the "
            + "first line's coordinate fields are not numbers).")
    static let trimOption = CommandSpec.Option(
        "trim", .boolean, default: .value(.bool(true)), help: "Trim blanks around field values.")
    static let idColumnOption = CommandSpec.Option(
        "id-column", .text, placeholder: "COL",
        help: "Column with the POI id. COL is a header name, or a 0-based index when all digits.")
    static let nameColumnOption = CommandSpec.Option(
        "name-column", .text, placeholder: "COL", help: "Column with the POI name.")
    static let keywordColumnOption = CommandSpec.Option(
        "keyword-column", .text, repeatable: true, placeholder: "COL",
        help: "Column with keyword values (category, tags, rubrics).")
    static let lonColumnOption = CommandSpec.Option(
        "lon-column", .text, placeholder: "COL", help: "Column with the longitude (give --lat-column too).")
    static let latColumnOption = CommandSpec.Option(
        "lat-column", .text, placeholder: "COL", help: "Column with the latitude.")
    static let coordinatesColumnOption = CommandSpec.Option(
        "coordinates-column", .text, placeholder: "COL",
        help: "One column holding both numbers, \"lon,lat\" or \"lon lat\".")
    static let wktColumnOption = CommandSpec.Option(
        "wkt-column", .text, placeholder: "COL", help: "One column holding a WKT POINT(lon lat).")
    static let coordinateOrderOption = CommandSpec.Option(
        "coordinate-order", .choice(InputSpec.CoordinateOrder.allCases.map(\.rawValue)),
        default: .value(.string(InputSpec.CoordinateOrder.lonLat.rawValue)),
        help: "Order of the numbers in --coordinates-column.")
    static let crsOption = CommandSpec.Option(
        "crs", .choice(ChineseCoordinates.System.allCases.map(\.rawValue)),
        default: .value(.string(ChineseCoordinates.System.wgs84.rawValue)),
        help: "Coordinate system of the input; GCJ-02 and BD-09 are converted to WGS84.")
    static let keywordSplitOption = CommandSpec.Option(
        "keyword-split", .choice(InputSpec.KeywordSplit.allCases.map(\.rawValue)),
        default: .value(.string(InputSpec.KeywordSplit.auto.rawValue)),
        help:
            "How keyword values are split (auto: list literals like ['a', 'b'], else at the keyword separator; "
            + "hstore: OSM tags as \"k\"=>\"v\" pairs, the values of the OSM keyword keys with their keys).")
    static let keywordSeparatorOption = CommandSpec.Option(
        "keyword-separator", .text, default: .value(.string(";")), help: "Separator of hierarchy levels.")
    static let missingValueOption = CommandSpec.Option(
        "missing-value", .text, repeatable: true,
        help:
            "A value meaning \"missing\" (replaces the defaults NULL, null, NaN, nan, N/A, None; the empty value is "
            + "always missing).")
    static let osmPoiKeysOption = CommandSpec.Option(
        "osm-poi-keys", .list(.text), placeholder: "K1,K2,...", help: "OSM: tag keys that make an element a POI.")
    static let osmKeywordKeysOption = CommandSpec.Option(
        "osm-keyword-keys", .list(.text), placeholder: "K1,K2,...", help: "OSM: tag keys whose values are keywords.")
    static let osmNameKeyOption = CommandSpec.Option(
        "osm-name-key", .text, placeholder: "KEY", help: "OSM: tag key of the name.")
    static let maxRecordBytesOption = CommandSpec.Option(
        "max-record-bytes", .integer(InputSpec.maxRecordBytesRange),
        default: .computed("1 MiB for delimited text, 256 MiB for GeoJSON"),
        help: "Longest record accepted.")

    public static let definition = StageDefinition(
        name: "ingest",
        abstract:
            "read POI files (CSV/TSV/…, GeoJSON, OSM, any GDAL vector format; gzip ok) into a validated POI table",
        // 3: GDAL inputs; 4: keyword values carry the code of the key they came from (keyword_keys);
        // 5: ids name one POI in all inputs (id_scope), a POI keeps at most 64 KiB of keyword text, the
        // rejects file is capped, unused out-of-range numbers in GeoJSON properties no longer reject.
        // 6: the label tags: a street column (addr:street) and place_* columns when the input has
        //    them (OSM tags, a delimited input's columns.tags).
        version: 6,
        inputs: [],
        outputs: [
            .init(option: "output", fileName: "pois.rsa", kind: .pois),
            .init(option: "rejects", fileName: "rejects.txt", kind: nil),
        ],
        options: IngestSettings.self)

    /// Format options for positional FILEs; each maps to an input-spec key.
    static let formatOptions: [CommandSpec.Option] = [
        Self.inputSpecOption,
        Self.formatOption,
        Self.delimiterOption,
        Self.quoteOption,
        Self.headerOption,
        Self.trimOption,
        Self.idColumnOption,
        Self.nameColumnOption,
        Self.keywordColumnOption,
        Self.lonColumnOption,
        Self.latColumnOption,
        Self.coordinatesColumnOption,
        Self.wktColumnOption,
        Self.coordinateOrderOption,
        Self.crsOption,
        Self.keywordSplitOption,
        Self.keywordSeparatorOption,
        Self.missingValueOption,
        Self.osmPoiKeysOption,
        Self.osmKeywordKeysOption,
        Self.osmNameKeyOption,
        Self.maxRecordBytesOption,
        Self.layerOption,
        Self.sqlOption,
        Self.whereOption,
        Self.sourceCRSOption,
        Self.openOptionOption,
    ]

    static let discussion = """
        Reads each FILE (and each --input-spec) in order, detecting gzip and the format from the
        content: delimited text, GeoJSON and OSM by this tool's own readers, GeoPackage, Shapefile,
        FlatGeobuf, KML, GML, GPX, MapInfo and other GDAL formats through OGR (reprojected to WGS84
        from the layer's CRS); compressed or binary data no reader takes is refused by name.
        Delimited text follows RFC 4180 (quotes, embedded line breaks, CRLF, BOM). GeoJSON may be a
        FeatureCollection (streamed), a feature sequence (RFC 8142) or one feature per line;
        non-point geometries are reduced to one representative point. Coordinates are
        validated (missing, out of range, null island, --bbox) and GCJ-02/BD-09 converted to WGS84.
        Keyword values are Unicode-normalised (NFKC + case fold).

        Every record is either accepted, rejected (written with its line, byte offset and reason
        to --rejects: delimited text for delimited inputs, otherwise one JSON object per line; a
        first record that cannot be read at all, so that no delimiter or header is known, as one
        JSON object with its first 1,000 bytes) or a duplicate id handled by --duplicates; counts
        are printed and add up. The format options
        apply to the positional FILEs; see docs/INGEST.md for all keys.
        """

    /// Entry point of `regionsearch-ingest`.
    public static func main() -> Never {
        ToolMain.run(commandSpec()) { parsed in try run(parsed) }
    }

    /// The executable's command line: positional FILEs with the format options, the ports and
    /// the parameters.
    package static func commandSpec() -> CommandSpec {
        definition.commandSpec(discussion: discussion, extraOptions: formatOptions, positionals: ["[FILE...]"])
    }

    /// Runs the stage for parsed arguments (also used by tests).
    public static func run(_ parsed: ParsedCommandLine) throws {
        var stage = try StageInvocation<IngestSettings>(parsed, definition)
        let output = try stage.outputPath()
        let rejectsPath = try stage.outputPath("rejects")
        let settings = stage.options
        let specs = try inputSpecs(parsed)
        // `--output pois.geojsonseq` would turn the file it reads into an artifact.
        try stage.checkPaths(
            inputs: specs.enumerated().compactMap { k, spec in
                InputSpec.isConnectionString(spec.path) ? nil : ("input \(k + 1)", spec.path)
            })
        // One file named twice (a path and a link to it) would count every POI twice.
        if let (first, repeated) = InputSpec.firstRepeatedFile(specs) {
            throw UsageError(
                "input \(repeated + 1) (\(specs[repeated].displayPath)) is the same file as input \(first + 1) "
                    + "(\(specs[first].displayPath)), through a link or another spelling of its path; name each file "
                    + "once, or its POIs are counted twice")
        }

        let inputs: [OpenedInput]
        do {
            inputs = try stage.summary.time(.open) {
                var inputs: [OpenedInput] = []
                for s in specs {
                    let input = try OpenedInput.open(s)
                    Log.info("\(s.displayPath): \(describe(input))")
                    inputs.append(input)
                }
                return inputs
            }
        } catch let error as FirstRecordError {
            // Rejected records are kept and counted, this one too: the input stops here, but its
            // first record goes to the rejects file (as JSON: the input's delimiter and header are
            // unknown) with its line, offset, length and an excerpt, and the message says where.
            let rejects = try RejectsWriter(path: rejectsPath, style: .ndjson)
            try rejects.write(sourceFile: error.path, error.record)
            try rejects.commit()
            stage.summary.set(.read, 1)
            stage.summary.set(.rejected, 1)
            stage.summary.setDetail(
                "reject_reasons", .object([(IngestCounts.kind(of: error.record.reason), .number(1))]))
            try? stage.finish()
            throw FirstRecordError.kept(path: error.path, record: error.record, rejects: rejectsPath)
        }
        let rejects = try RejectsWriter(path: rejectsPath, style: RejectsWriter.style(for: inputs))
        let result: IngestResult
        do {
            result = try IngestDriver(settings: settings).run(inputs, rejects: rejects)
        } catch {
            rejects.discard()
            throw error
        }
        try rejects.commit()
        stage.summary.add(.read, seconds: result.seconds)

        let totalBytes = result.bytesRead.reduce(0, +)
        let rate = Double(totalBytes) / max(result.seconds, 1e-9) / 1_000_000
        var inputReports: [JSONValue] = []
        for (input, (counts, bytes)) in zip(inputs, zip(result.perInput, result.bytesRead)) {
            inputReports.append(
                .object([
                    ("path", .string(input.spec.displayPath)), ("format", .string(input.format.rawValue)),
                    ("bytes", .number(Double(bytes))), ("counts", counts.json),
                ]))
        }
        stage.summary.setDetail("inputs", .array(inputReports))
        let total = result.total
        for (count, n) in [
            (StageSummary.Count.read, total.read), (.accepted, total.accepted), (.rejected, total.rejected),
            (.mergedDuplicates, total.mergedDuplicates), (.droppedDuplicates, total.droppedDuplicates),
            (.keptDuplicates, total.keptDuplicates), (.blankLines, total.blankLines),
        ] {
            stage.summary.set(count, n)
        }
        if total.crossInputDuplicates > 0 { stage.summary.set(.crossInputDuplicates, total.crossInputDuplicates) }
        stage.summary.setDetail("reject_reasons", total.json["reject_reasons"] ?? .object([]))
        stage.summary.set(.inputBytes, Int(totalBytes))
        if rejects.notWritten > 0 { stage.summary.set(.rejectsNotWritten, rejects.notWritten) }
        if result.droppedKeywordValues > 0 {
            stage.summary.set(.keywordValuesDropped, result.droppedKeywordValues)
            try Log.strictWarning(
                "\(groupedCount(result.droppedKeywordValues)) keyword value(s) left out: a POI keeps at most "
                    + "\(IngestDriver.maxKeywordTextBytes >> 10) KiB of keyword text (its own values and those merged "
                    + "from repeats of its id, in input order)")
        }
        stage.summary.setDetail("mb_per_s", .number((rate * 10).rounded() / 10))
        stage.summary.setDetail("rejects_format", .string(rejects.style == .ndjson ? "ndjson" : "delimited"))
        stage.summary.setDetail("reader_thread_cpu_seconds", .number((result.readerCPUSeconds * 1000).rounded() / 1000))
        stage.summary.setDetail(
            "builder_thread_cpu_seconds", .number((result.builderCPUSeconds * 1000).rounded() / 1000))
        if inputs.count > 1 { Log.info("total: \(result.total.summary)") }
        if rejects.notWritten > 0 { Log.warning(rejects.report) } else { Log.info(rejects.report) }

        do {
            try IngestDriver.check(result, inputs: inputs, settings: settings, rejectsPath: rejectsPath)
        } catch {
            try? stage.finish()
            throw error
        }
        let metadata = JSONValue.object([
            ("stage", .string(definition.name)),
            ("stage_version", .number(Double(definition.version))),
            ("parameters", stage.parameters.canonical),
            ("inputs", .array(zip(inputs, result.perInput).map { input, counts in metadataEntry(input, counts) })),
            ("counts", result.total.json),
            (
                "provenance",
                stage.provenance(
                    inputs: [],
                    extra: [
                        (
                            "inputs",
                            .array(
                                inputs.map { input in
                                    .object([
                                        ("file", .string(fileName(input.spec.path))),
                                        ("content_hash", .string(input.contentHash.description)),
                                        ("format", .string(input.format.rawValue)),
                                    ])
                                })
                        )
                    ])
            ),
        ])
        let (size, _) = try stage.summary.time(.write) { try result.table.writer(metadata: metadata).write(to: output) }
        Log.info(
            "wrote \(groupedCount(result.table.count)) POIs to \(output) (\(groupedCount(size)) bytes); "
                + "read \(String(format: "%.1f", Double(totalBytes) / 1_000_000)) MB in "
                + "\(String(format: "%.2f", result.seconds)) s (\(String(format: "%.0f", rate)) MB/s)"
        )
        try stage.finish()
    }

    /// The last path component: artifacts record input file names, not machine-specific paths,
    /// so the same input gives the same artifact bytes wherever it lives.
    static func fileName(_ path: String) -> String {
        // A database connection is named by its text, without a password.
        if InputSpec.isConnectionString(path) { return InputSpec(path: path).displayPath }
        return String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path))
    }

    static func metadataEntry(_ input: OpenedInput, _ counts: IngestCounts) -> JSONValue {
        var spec = input.spec.json.objectValue ?? []
        if let i = spec.firstIndex(where: { $0.0 == "path" }) { spec[i].1 = .string(fileName(input.spec.path)) }
        var m: [(String, JSONValue)] = [
            ("file", .string(fileName(input.spec.path))),
            ("content_hash", .string(input.contentHash.description)),
            ("file_bytes", .number(Double(input.fileSize))),
            ("gzip", .bool(input.isGzip)),
            ("format", .string(input.format.rawValue)),
        ]
        if let d = input.source as? DelimitedReader {
            m.append(("delimiter", .string(String(UnicodeScalar(d.delimiter)))))
            m.append(("header", .bool(d.hasHeader)))
        }
        m.append(("spec", .object(spec)))
        m.append(("counts", counts.json))
        return .object(m)
    }

    static func describe(_ input: OpenedInput) -> String {
        var s = (input.isGzip ? "gzip, " : "")
        switch input.source {
        case let d as DelimitedReader:
            let name: String
            switch d.delimiter {
            case 0x09: name = "tab"
            case 0x20: name = "space"
            default: name = "'\(String(UnicodeScalar(d.delimiter)))'"
            }
            s +=
                "delimited text, delimiter \(name), "
                + "\(d.hasHeader ? "header line" : "no header line"); \(d.mappingDescription)"
            if !d.guessedColumns.isEmpty { s += " (guessed: \(d.guessedColumns.joined(separator: ", ")))" }
        case is GeoJSONReader:
            s += "GeoJSON"
        case let o as OGRReader:
            s +=
                "GDAL \(o.driverName), layer '\(o.layerName)' in \(o.crsDescription)"
                + (o.crsDescription == "EPSG:4326" ? "" : " (reprojected to WGS 84)") + "; \(o.mappingDescription)"
            for note in o.notes { s += "; " + note }
        default:
            s += input.format.rawValue
        }
        if input.spec.crs != .wgs84 { s += "; converting \(input.spec.crs.rawValue) to WGS84" }
        return s
    }

    /// Input specs from the positional FILEs (with the format options) and `--input-spec`s.
    static func inputSpecs(_ parsed: ParsedCommandLine) throws(UsageError) -> [InputSpec] {
        var specs: [InputSpec] = []
        let fileOptions = formatOptions.filter { $0 != inputSpecOption }
        if parsed.positionals.isEmpty, let first = parsed.givenAny(fileOptions) {
            throw UsageError(
                "--\(first.name) applies to positional FILEs; with --input-spec, put the setting in the JSON")
        }
        for file in parsed.positionals {
            specs.append(try InputSpec(json: formatOptionsJSON(parsed, path: file), context: "input '\(file)'"))
        }
        for (k, text) in parsed.all(Self.inputSpecOption).enumerated() {
            let json: JSONValue
            do {
                json = try JSONParser.parse(text)
            } catch {
                throw UsageError("--input-spec #\(k + 1): invalid JSON: \(error.description)")
            }
            specs.append(try InputSpec(json: json, context: "inputs[\(specs.count)]"))
        }
        if specs.isEmpty { throw UsageError("no input: give one or more FILEs or --input-spec") }
        return specs
    }

    /// The JSON input spec equivalent to the command line's format options for one FILE: the
    /// options given, by their input-spec keys (InputSpec checks what the domains do not).
    static func formatOptionsJSON(_ parsed: ParsedCommandLine, path: String) throws(UsageError) -> JSONValue {
        var m: [(String, JSONValue)] = [("path", .string(path))]
        func column(_ text: String) -> JSONValue {
            if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let i = Int(text) {
                return .number(Double(i))
            }
            return .string(text)
        }
        for option in [
            formatOption, delimiterOption, quoteOption, coordinateOrderOption, crsOption, keywordSplitOption,
            keywordSeparatorOption,
        ] {
            if let v = parsed.value(option) {
                m.append((option.name.replacingOccurrences(of: "-", with: "_"), .string(v)))
            }
        }
        if let v = parsed.value(Self.headerOption) {
            m.append(("header", v == "auto" ? .string("auto") : .bool(v == "true")))
        }
        if let v = parsed.optionalBool(Self.trimOption), parsed.isGiven(Self.trimOption) {
            m.append(("trim", .bool(v)))
        }
        var columns: [(String, JSONValue)] = []
        for (option, key) in [
            (idColumnOption, "id"), (nameColumnOption, "name"), (lonColumnOption, "lon"), (latColumnOption, "lat"),
            (coordinatesColumnOption, "coordinates"), (wktColumnOption, "wkt"),
        ] {
            if let v = parsed.value(option) { columns.append((key, column(v))) }
        }
        let keywordColumns = parsed.all(Self.keywordColumnOption)
        if !keywordColumns.isEmpty { columns.append(("keywords", .array(keywordColumns.map(column)))) }
        if !columns.isEmpty { m.append(("columns", .object(columns))) }
        let missing = parsed.all(Self.missingValueOption)
        if !missing.isEmpty { m.append(("missing_values", .array(missing.map { .string($0) }))) }
        var osm: [(String, JSONValue)] = []
        for (option, key) in [(osmPoiKeysOption, "poi_keys"), (osmKeywordKeysOption, "keyword_keys")] {
            if let keys = parsed.optionalList(option) { osm.append((key, .array(keys))) }
        }
        if let v = parsed.value(Self.osmNameKeyOption) { osm.append(("name_key", .string(v))) }
        if !osm.isEmpty { m.append(("osm", .object(osm))) }
        for (option, key) in [
            (layerOption, "layer"), (sqlOption, "sql"), (whereOption, "where"), (sourceCRSOption, "source_crs"),
        ] {
            if let v = parsed.value(option) { m.append((key, .string(v))) }
        }
        let openOptions = parsed.all(Self.openOptionOption)
        if !openOptions.isEmpty { m.append(("open_options", .array(openOptions.map { .string($0) }))) }
        if let n = parsed.optionalInteger(Self.maxRecordBytesOption) {
            m.append(("max_record_bytes", .number(Double(n))))
        }
        return .object(m)
    }
}
