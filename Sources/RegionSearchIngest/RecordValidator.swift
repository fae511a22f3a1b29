import RegionSearchCore

/// The coordinate rules every record passes, whatever its format, applied by the ingest
/// driver (not the readers) so that all formats reject for the same reasons:
/// 1. missing (NaN) → `missing coordinates`; present but not a number → `unreadable coordinates`;
/// 2. |lon| > 180 or |lat| > 90 (or infinite) → `longitude out of range` / `latitude out of range`;
/// 3. exactly lon = lat = 0, as given → `null island` (unless disabled);
/// 4. conversion from the input's CRS (GCJ-02, BD-09) to WGS84;
/// 5. outside the declared bbox (WGS84) → `outside bbox`.
struct RecordValidator: Sendable {
    public let crs: ChineseCoordinates.System
    public let bbox: GeoBox?
    let rejectNullIsland: Bool

    public init(crs: ChineseCoordinates.System, bbox: GeoBox?, rejectNullIsland: Bool) {
        self.crs = crs
        self.bbox = bbox
        self.rejectNullIsland = rejectNullIsland
    }

    /// Checks and converts a record's coordinates in place; returns the reject reason, or nil.
    @inline(__always)
    public func check(lon: inout Double, lat: inout Double, coordinateText: @autoclosure () -> String?) -> String? {
        let x = lon
        let y = lat
        if let reason = checkInput(lon: x, lat: y, coordinateText: coordinateText()) { return reason }
        if crs != .wgs84 {
            let w = ChineseCoordinates.toWGS84(lon: x, lat: y, from: crs)
            lon = w.lon
            lat = w.lat
        }
        if let bbox, !bbox.contains(lon: lon, lat: lat) {
            return "outside bbox: \(JSONValue.formatNumber(lon)), \(JSONValue.formatNumber(lat)) not in \(bbox)"
        }
        return nil
    }

    /// Rules 1–3, on the coordinates as given.
    @inline(__always)
    private func checkInput(lon: Double, lat: Double, coordinateText: @autoclosure () -> String?) -> String? {
        if lon.isNaN || lat.isNaN {
            if let t = coordinateText() { return "unreadable coordinates: \(t)" }
            return "missing coordinates"
        }
        if !(abs(lon) <= 180) { return "longitude out of range: \(Self.text(lon))" }
        if !(abs(lat) <= 90) { return "latitude out of range: \(Self.text(lat))" }
        if rejectNullIsland && lon == 0 && lat == 0 { return "null island: lon = lat = 0" }
        return nil
    }

    private static func text(_ d: Double) -> String { d.isFinite ? JSONValue.formatNumber(d) : "\(d)" }
}
