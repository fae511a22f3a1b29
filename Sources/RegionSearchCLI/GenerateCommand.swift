import Foundation
import RegionSearchCore
import RegionSearchRunner
import RegionSearchSynthetic

/// `regionsearch-generate`: writes a synthetic city with planted keyword clusters and its truth.
public enum GenerateCommand {
    /// The defaults every scenario shares.
    static let defaults = SyntheticCity.Config()

    /// A default that depends on the scenario, read from each scenario's configuration:
    /// "20, strips 12, periphery 12, rivers 3, uniform 0".
    static func byScenario(_ value: (SyntheticCity.Config) -> String, note: String = "") -> CommandSpec.Option.Default {
        let base = value(defaults)
        let others = SyntheticScenario.allCases.compactMap { scenario -> String? in
            let v = value(SyntheticCity.Config(scenario: scenario))
            return v == base ? nil : "\(scenario.rawValue) \(v)"
        }
        let details = others + (note.isEmpty ? [] : [note])
        return .computed(([base] + details).joined(separator: ", "))
    }

    static func format(_ d: Double) -> String { JSONValue.formatNumber(d) }

    /// The largest `--extent-km`: a metro with the towns around it, on a plane round the centre.
    static let maximumExtentKm = 2000.0
    /// The smallest minor semi-axis of a planted cluster (--min-radius-m / --aspect), metres.
    static let minimumMinorAxisM = 1.0
    /// How far beyond the extent the towns scenario places its towns (at most 100 km from the
    /// metro's edge, with their spread).
    static let townReachKm = 150.0

    static let outOption = CommandSpec.Option(
        "out", .path, default: .required, placeholder: "PREFIX", help: "Output path prefix.")
    static let scenarioOption = CommandSpec.Option(
        "scenario", .choice(SyntheticScenario.allCases.map(\.rawValue)),
        default: .value(.string(defaults.scenario.rawValue)),
        help: "What to plant; see below.")
    static let nOption = CommandSpec.Option(
        "n", .integer(1...1_000_000_000), default: .value(.number(Double(defaults.n))),
        help:
            "Total POIs; at least the planted clusters' own (each about max(20, N/1000)), so a small N writes more. "
            + "About \(bytesPerPOI) bytes of memory a POI: more than the machine has is refused.")
    static let seedOption = CommandSpec.Option(
        "seed", .integer(0...Int.max), default: .value(.number(Double(defaults.seed))), placeholder: "S",
        help: "Random seed.")
    static let clustersOption = CommandSpec.Option(
        "clusters", .integer(0...100_000), default: byScenario({ "\($0.clusters)" }), placeholder: "K",
        help: "Planted clusters (0 = none); strips: strips; rivers: pairs per river; rivers-downtown: pairs per "
            + "downtown; blocks: keyword blocks; towns: metro clusters.")
    static let townsOption = CommandSpec.Option(
        "towns", .integer(0...1_000), default: byScenario({ "\($0.towns)" }), placeholder: "T",
        help: "towns: the number of towns around the metro.")
    static let keywordsOption = CommandSpec.Option(
        "keywords", .list(.text), default: byScenario({ $0.keywords.joined(separator: ",") }), placeholder: "A,B",
        help: "Planted keywords, round-robin.")
    static let centerOption = CommandSpec.Option(
        "center", .list(.number()),
        default: .value(.array([.number(defaults.centerLon), .number(defaults.centerLat)])), placeholder: "LON,LAT",
        help: "Centre of the city.")
    static let extentKmOption = CommandSpec.Option(
        "extent-km", .number(min: 0, minExclusive: true),
        default: byScenario({ format($0.extentKm) }, note: "rivers: from --n"), placeholder: "KM",
        help: "Side of the square city, at most 2000 km (laid out on a plane around --center).")
    static let aspectOption = CommandSpec.Option(
        "aspect", .number(min: 1), default: byScenario({ format($0.aspect) }), placeholder: "R",
        help: "Cluster elongation, major/minor axis (1 = discs).")
    static let minRadiusMOption = CommandSpec.Option(
        "min-radius-m", .number(min: 0, minExclusive: true), default: byScenario({ format($0.minRadius) }),
        placeholder: "M",
        help: "Smallest planted cluster radius (semi-major axis) in metres; divided by --aspect, at least 1 m.")
    static let maxRadiusMOption = CommandSpec.Option(
        "max-radius-m", .number(min: 0, minExclusive: true), default: byScenario({ format($0.maxRadius) }),
        placeholder: "M", help: "Largest planted cluster radius in metres.")
    static let backgroundRateOption = CommandSpec.Option(
        "background-rate", .text, repeatable: true, placeholder: "KEYWORD=SHARE",
        help: "Share of background POIs with this category, e.g. bank=0.5; the shares sum to at most 1.")
    static let emptyBandOption = CommandSpec.Option(
        "empty-band", .list(.number()), repeatable: true, placeholder: "X0,Y0,X1,Y1",
        help: "A rectangle in metres from the centre kept free of POIs.")
    static let formatOption = CommandSpec.Option(
        "format", .choice(["csv", "geojson"]), default: .value(.string("csv")), help: "POI file format.")

    static let spec = CommandSpec(
        name: "regionsearch-generate",
        abstract:
            "write a deterministic synthetic city with planted keyword clusters (for tests, tuning and benchmarks)",
        discussion: """
            Writes PREFIX.csv (id,name,category,lon,lat) or PREFIX.geojson, PREFIX.truth.geojson (one
            polygon per planted item, with its keyword, kind and cluster_id), PREFIX.truth_members.csv
            (id,cluster_id) and, for the scenarios with areas regions must avoid, PREFIX.must_not.geojson
            (kind void or sparse; `regionsearch-evaluate truth --must-not`). The output depends only on
            the options. The files replace those of an earlier run as one set (none is replaced when one
            cannot be written), and a PREFIX.must_not.geojson an earlier run wrote is removed when the
            scenario has none.

            Scenarios (--scenario):
              clusters   the default. Background: 60 % uniform over the extent, 40 % in five Gaussian
                         downtowns; 21 categories in English and Chinese. Planted clusters: truncated
                         Gaussians of radius U(150, 800) m (--aspect stretches them) holding
                         U(0.5, 1.5) × max(20, n/1000) POIs each, anywhere.
              strips     the same background with 12 dining strips (restaurant): 1-2 km polylines,
                         straight or bent once or twice by 20-60°, 40 % axis-aligned, the rest at any
                         angle, at least 1 km apart; 30-40 keyword POIs each within 25 m of the line,
                         plus other-category POIs so that the keyword's share in the 40 m corridor is
                         2-3 × its background share. Truth: the 40 m corridor.
              periphery  density exp(-r / L) from a dense core (L = extent / 22; 40 km by default)
                         to an edge where POIs are km apart; water east of a wavy coast with a bay;
                         six parks and lakes without POIs; 12 clusters (cafe), half in the core
                         (150-350 m), half in the mid ring (250-600 m), each with 25-50 % as many
                         keyword POIs as background POIs in its disc. Must-not: water, parks and
                         lakes (void), the periphery beyond 25 % of the extent (sparse).
              rivers     four 4 km zones with local spacing (5th-neighbour distance) 50, 30, 40 and
                         60 m, each crossed by a meandering empty band 150 m (3 ×), 75 m (2.5 ×),
                         120 m (3 ×) and 240 m (4 ×) wide; 3 pairs of clusters (cafe) per river
                         facing each other, radius 6 × spacing, 15 m from the water. Truth: each
                         cluster on its own. Must-not: the bands. --n sets the zones' width (at
                         least 900 m per pair: 3 pairs make at least 40,000 POIs).
              ellipses   5:1 elliptic clusters (semi-major axis 400-1200 m) in the downtowns of a
                         20 km city.
              uniform    uniform density everywhere, no clusters (a null test).
              rivers-downtown
                         two zones 6 km tall as wide as makes N (at least 6 km), base spacing 120 m:
                         a 150 m river meandering through downtowns every ~6 km (spacing 50 m at
                         their centre, both banks dense) with 4 facing pairs of clusters (cafe) per
                         downtown 15 m from the water; a 400-600 m river between two boroughs
                         (spacing 60 m at their centres) with 2 facing pairs per borough pair.
                         Truth: each cluster on its own. Must-not: the rivers (kind river).
              blocks     a grid of 160 × 80 m blocks and 20 m streets (about 1,000 POIs per km², 70 %
                         of them on frontages); 12 blocks with 24-36 keyword POIs (restaurant) on
                         both long frontages and inside (truth: the block), 6 frontage strips with
                         18-27 along one side of a street over three blocks (truth: that band).
              towns      the clusters city (10 planted clusters, kind cluster) and 8 towns 50-100 km
                         away at 1/20-1/10 of its mean density, each with a dining centre of 12-24
                         keyword POIs (restaurant) within 150-300 m (kind town).
              downtowns  the clusters city with no planted cluster (as --clusters 0, the same POIs)
                         and its five downtowns written to PREFIX.must_not.geojson (kind downtown,
                         the disc of 2 σ) for the count of regions per downtown (a null test).
            """,
        options: [
            Self.outOption,
            Self.scenarioOption,
            Self.nOption,
            Self.seedOption,
            Self.clustersOption,
            Self.townsOption,
            Self.keywordsOption,
            Self.centerOption,
            Self.extentKmOption,
            Self.aspectOption,
            Self.minRadiusMOption,
            Self.maxRadiusMOption,
            Self.backgroundRateOption,
            Self.emptyBandOption,
            Self.formatOption,
        ])

    /// Whether `path` is a file this command wrote (its first bytes are the generator's).
    static func isGeneratorOutput(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        return head.starts(with: Array("{\"type\":\"FeatureCollection\",\"generator\":".utf8))
    }

    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    /// Memory a city takes to generate per POI, bytes, on ``baseMemory``: measured at 200k and 1M
    /// POIs (69 and 201 MB peak).
    static let bytesPerPOI = 170
    static let baseMemory = 40e6

    /// Memory a city of `n` POIs takes to generate, bytes.
    static func memoryEstimate(n: Int) -> Double { baseMemory + Double(bytesPerPOI) * Double(n) }

    /// Why `n` POIs cannot be generated on a machine of `physicalMemory` bytes; nil when they can.
    /// Checked before anything is generated: `--n 1000000000` was accepted and would have run for
    /// hours before the system killed it for lack of memory.
    static func memoryRefusal(n: Int, physicalMemory: UInt64) -> String? {
        let needed = memoryEstimate(n: n)
        guard needed > Double(physicalMemory) else { return nil }
        func gb(_ bytes: Double) -> String { String(format: "%.1f GB", bytes / 1e9) }
        return
            "--n \(n) would need about \(gb(needed)) of memory (about \(bytesPerPOI) bytes a POI) and this machine has "
            + "\(gb(Double(physicalMemory))): give a smaller --n"
    }

    static func run(_ cl: ParsedCommandLine) throws {
        // The scenario's configuration, then every option given over it.
        var config = SyntheticCity.Config(scenario: cl.choice(Self.scenarioOption, as: SyntheticScenario.self))
        config.n = cl.integer(Self.nOption)
        if let refusal = memoryRefusal(n: config.n, physicalMemory: ProcessInfo.processInfo.physicalMemory) {
            throw UsageError(refusal)
        }
        config.seed = UInt64(cl.integer(Self.seedOption))
        if let v = cl.optionalInteger(Self.clustersOption) { config.clusters = v }
        if let v = cl.optionalInteger(Self.townsOption) { config.towns = v }
        if let v = cl.optionalNumber(Self.extentKmOption) { config.extentKm = v }
        if let v = cl.optionalNumber(Self.aspectOption) { config.aspect = v }
        if let v = cl.optionalNumber(Self.minRadiusMOption) { config.minRadius = v }
        if let v = cl.optionalNumber(Self.maxRadiusMOption) { config.maxRadius = v }
        guard config.minRadius <= config.maxRadius else {
            throw UsageError(
                "--min-radius-m and --max-radius-m: need min ≤ max, got \(config.minRadius) and \(config.maxRadius)")
        }
        if let v = cl.optionalList(Self.keywordsOption) {
            config.keywords = v.compactMap(\.stringValue)
            if let blank = config.keywords.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw UsageError(
                    "--keywords: keyword \(blank + 1) is empty; give names such as cafe,bank (planted clusters carry them)"
                )
            }
        }
        let center = cl.list(Self.centerOption).compactMap(\.doubleValue)
        guard center.count == 2 else {
            throw UsageError("--center: expected LON,LAT, got \"\(cl.value(Self.centerOption) ?? "")\"")
        }
        config.centerLon = center[0]
        config.centerLat = center[1]
        for r in cl.all(Self.backgroundRateOption) {
            let kv = r.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let share = ValueSyntax.number(kv[1]), share >= 0, share <= 1 else {
                throw UsageError("--background-rate: expected KEYWORD=SHARE with SHARE in [0, 1], got \"\(r)\"")
            }
            config.backgroundRates[String(kv[0])] = share
        }
        // The shares are of one background: together at most all of it (over 1, the categories
        // without a rate got none and the rates were not what was asked).
        let totalShare = config.backgroundRates.values.reduce(0, +)
        guard totalShare <= 1 + 1e-9 else {
            throw UsageError(
                "--background-rate: the shares add up to \(format((totalShare * 1000).rounded() / 1000)), more than the whole background (1); "
                    + "give shares that sum to at most 1")
        }
        // The city is laid out on a plane around --center (azimuthal equidistant): beyond a few
        // thousand km the plane wraps round the globe and past the poles, and the coordinates
        // written are not the layout's.
        guard config.extentKm <= Self.maximumExtentKm else {
            throw UsageError(
                "--extent-km \(format(config.extentKm)): at most \(format(Self.maximumExtentKm)) km (a city and the "
                    + "towns around it; the layout is a plane around --center)")
        }
        guard abs(config.centerLon) <= 180,
            abs(config.centerLat) + (config.extentKm / 2 + Self.townReachKm) / 111.32 <= 85
        else {
            throw UsageError(
                "--center \(format(config.centerLon)),\(format(config.centerLat)) with --extent-km "
                    + "\(format(config.extentKm)): the city would reach past 85° of latitude (or the longitude is "
                    + "beyond ±180); move the centre towards the equator or give a smaller extent")
        }
        for (b, band) in zip(cl.all(Self.emptyBandOption), cl.typedValues(Self.emptyBandOption)) {
            let p = (band.arrayValue ?? []).compactMap(\.doubleValue)
            guard p.count == 4 else {
                throw UsageError("--empty-band: expected X0,Y0,X1,Y1 in metres, got \"\(b)\"")
            }
            config.emptyBands.append(
                .init(minX: min(p[0], p[2]), minY: min(p[1], p[3]), maxX: max(p[0], p[2]), maxY: max(p[1], p[3])))
        }
        // A cluster is written as a 128-gon to 7 decimals of a degree (about 1 cm): one whose
        // minor semi-axis is a few centimetres collapses to a truth polygon without area, which
        // nothing can match (--min-radius-m 1e-3 wrote 20 empty MultiPolygons).
        let minorAxis = config.minRadius / config.aspect
        guard minorAxis >= Self.minimumMinorAxisM else {
            throw UsageError(
                "--min-radius-m \(Self.format(config.minRadius)) with --aspect \(Self.format(config.aspect)): the smallest "
                    + "cluster would be \(Self.format(minorAxis)) m across its minor semi-axis; it must be at least "
                    + "\(Self.format(Self.minimumMinorAxisM)) m (truth polygons are written to about 1 cm): give a larger "
                    + "--min-radius-m or a smaller --aspect")
        }
        let prefix = try cl.required(Self.outOption)
        // A prefix names files: `out/city` writes out/city.csv, out/city.truth.geojson, …. An empty
        // one, or a folder, would write hidden `.csv` and `.truth.geojson` files in it.
        let stem = AtomicFile.baseName(of: prefix)
        if stem.isEmpty || stem == "." || stem == ".." || prefix.hasSuffix("/") || FileSystem.isDirectory(prefix) {
            throw UsageError(
                "--out \"\(prefix)\": expected a path prefix that ends in a name, e.g. out/city (writes out/city.csv, "
                    + "out/city.truth.geojson, …)")
        }
        let format = cl.string(Self.formatOption)
        let city = try SyntheticCity(config)
        // The files are one city: all of them are written and flushed before any replaces the
        // file of that name, so a full disk leaves the previous set whole (a new PREFIX.csv beside
        // the old truth scored one city against another's clusters).
        let pois = try AtomicFile(path: prefix + "." + format)
        if format == "csv" {
            try city.writeCSV(into: pois)
        } else {
            try city.writeGeoJSON(into: pois)
        }
        var files = [pois]
        let mustNotPath = prefix + ".must_not.geojson"
        let others: [(String, String?)] = [
            (prefix + ".truth.geojson", city.truthGeoJSON()), (prefix + ".truth_members.csv", city.truthMembersCSV()),
            (mustNotPath, city.mustNotGeoJSON()),
        ]
        for (path, text) in others {
            guard let text else { continue }
            let file = try AtomicFile(path: path)
            try file.write(text)
            files.append(file)
        }
        for file in files { try file.flush() }
        for file in files { try file.commit() }
        // A must-not file an earlier run of another scenario left under this prefix would be
        // scored as this city's.
        if city.mustNot.isEmpty, Self.isGeneratorOutput(mustNotPath) {
            if unlink(mustNotPath) == 0 {
                Log.info("removed \(mustNotPath), which an earlier run wrote: this scenario has no must-not areas")
            }
        }
        let planted = city.clusterOf.filter { $0 >= 0 }.count
        let kinds = Set(city.truths.map(\.kind)).sorted()
        let kind =
            kinds.isEmpty ? "clusters" : kinds.map { $0 == "strip" ? "strips" : $0 + "s" }.joined(separator: " and ")
        Log.info(
            "wrote \(groupedCount(city.count)) POIs (\(groupedCount(planted)) planted in \(city.truths.count) "
                + "\(kind)) to \(prefix).\(format)"
                + (city.mustNot.isEmpty
                    ? "" : ", \(city.mustNot.count) must-not areas to \(prefix).must_not.geojson"))
    }
}
