import Foundation
import RegionSearchCore
import RegionSearchSynthetic

/// `regionsearch-generate`: writes a synthetic city with planted keyword clusters and its truth.
public enum GenerateCommand {
    static let outOption = CommandSpec.Option("out", .value, placeholder: "PREFIX", help: "Output path prefix.")
    static let nOption = CommandSpec.Option("n", .value, placeholder: "N", help: "Total POIs (default 100000).")
    static let seedOption = CommandSpec.Option("seed", .value, placeholder: "S", help: "Random seed (default 42).")
    static let clustersOption = CommandSpec.Option(
        "clusters", .value, placeholder: "K", help: "Planted clusters (default 20; 0 = none).")
    static let keywordsOption = CommandSpec.Option(
        "keywords", .value, placeholder: "A,B", help: "Planted keywords, round-robin (default 咖啡,bank).")
    static let centerOption = CommandSpec.Option(
        "center", .value, placeholder: "LON,LAT", help: "Centre of the city (default 116.40,39.90).")
    static let extentKmOption = CommandSpec.Option(
        "extent-km", .value, placeholder: "KM", help: "Side of the square city (default 30).")
    static let aspectOption = CommandSpec.Option(
        "aspect", .value, placeholder: "R", help: "Cluster elongation, major/minor axis (default 1 = discs).")
    static let minRadiusMOption = CommandSpec.Option(
        "min-radius-m", .value, placeholder: "M",
        help: "Smallest planted cluster radius (semi-major axis) in metres (default 150).")
    static let maxRadiusMOption = CommandSpec.Option(
        "max-radius-m", .value, placeholder: "M", help: "Largest planted cluster radius in metres (default 800).")
    static let backgroundRateOption = CommandSpec.Option(
        "background-rate", .repeated, placeholder: "KEYWORD=SHARE",
        help: "Share of background POIs with this category, e.g. bank=0.5.")
    static let emptyBandOption = CommandSpec.Option(
        "empty-band", .repeated, placeholder: "X0,Y0,X1,Y1",
        help: "A rectangle in metres from the centre kept free of POIs.")
    static let formatOption = CommandSpec.Option(
        "format", .value, placeholder: "csv|geojson", help: "POI file format (default csv).")

    static let spec = CommandSpec(
        name: "regionsearch-generate",
        abstract:
            "write a deterministic synthetic city with planted keyword clusters (for tests, tuning and benchmarks)",
        usage:
            "regionsearch-generate --out PREFIX [--n N] [--seed S] [--clusters K] [--keywords A,B] [--format "
            + "csv|geojson] …",
        discussion: """
            Writes PREFIX.csv (id,name,category,lon,lat) or PREFIX.geojson, PREFIX.truth.geojson (one
            polygon per planted cluster, with its keyword) and PREFIX.truth_members.csv (id,cluster_id).
            Background: 60 % uniform over the extent, 40 % in five Gaussian downtowns; 21 categories in
            English and Chinese. Planted clusters: truncated Gaussians of radius U(150, 800) m holding
            U(0.5, 1.5) × max(20, n/1000) POIs each. The output depends only on the options.
            """,
        options: [
            Self.outOption,
            Self.nOption,
            Self.seedOption,
            Self.clustersOption,
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

    public static func main() -> Never {
        ToolMain.run(spec) { cl in
            var config = SyntheticCity.Config()
            func number(_ option: CommandSpec.Option) throws -> Double? {
                guard let v = cl.value(option) else { return nil }
                guard let d = Double(v), d.isFinite else {
                    throw UsageError("--\(option.name): expected a number, got \"\(v)\"")
                }
                return d
            }
            if let v = try number(nOption) { config.n = Int(v) }
            if let v = try number(seedOption) { config.seed = UInt64(v) }
            if let v = try number(clustersOption) { config.clusters = Int(v) }
            if let v = try number(extentKmOption) { config.extentKm = v }
            if let v = try number(aspectOption) { config.aspect = max(1, v) }
            if let v = try number(minRadiusMOption) { config.minRadius = v }
            if let v = try number(maxRadiusMOption) { config.maxRadius = v }
            guard config.minRadius > 0, config.minRadius <= config.maxRadius else {
                throw UsageError(
                    "--min-radius-m and --max-radius-m: need 0 < min "
                        + "≤ max, got \(config.minRadius) and \(config.maxRadius)"
                )
            }
            if let v = cl.value(Self.keywordsOption) { config.keywords = v.split(separator: ",").map(String.init) }
            if let v = cl.value(Self.centerOption) {
                let parts = v.split(separator: ",").compactMap { Double($0) }
                guard parts.count == 2 else { throw UsageError("--center: expected LON,LAT, got \"\(v)\"") }
                config.centerLon = parts[0]
                config.centerLat = parts[1]
            }
            for r in cl.all(Self.backgroundRateOption) {
                let kv = r.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, let share = Double(kv[1]), share >= 0, share <= 1 else {
                    throw UsageError("--background-rate: expected KEYWORD=SHARE with SHARE in [0, 1], got \"\(r)\"")
                }
                config.backgroundRates[String(kv[0])] = share
            }
            for b in cl.all(Self.emptyBandOption) {
                let p = b.split(separator: ",").compactMap { Double($0) }
                guard p.count == 4 else {
                    throw UsageError("--empty-band: expected X0,Y0,X1,Y1 in metres, got \"\(b)\"")
                }
                config.emptyBands.append(
                    .init(minX: min(p[0], p[2]), minY: min(p[1], p[3]), maxX: max(p[0], p[2]), maxY: max(p[1], p[3])))
            }
            let prefix = try cl.required(Self.outOption)
            let format = cl.value(Self.formatOption) ?? "csv"
            guard format == "csv" || format == "geojson" else { throw UsageError("--format: expected csv or geojson") }
            let city = try SyntheticCity(config)
            if format == "csv" {
                try city.writeCSV(to: prefix + ".csv")
            } else {
                try city.writeGeoJSON(to: prefix + ".geojson")
            }
            try AtomicFile.write(city.truthGeoJSON(), to: prefix + ".truth.geojson")
            try AtomicFile.write(city.truthMembersCSV(), to: prefix + ".truth_members.csv")
            let planted = city.clusterOf.filter { $0 >= 0 }.count
            Log.info(
                "wrote \(groupedCount(city.count)) POIs (\(groupedCount(planted)) planted in \(city.clusters.count) "
                    + "clusters) to \(prefix).\(format)"
            )
        }
    }
}
