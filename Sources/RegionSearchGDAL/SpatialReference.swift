import CGDAL

/// Owns an `OGRSpatialReferenceH` (reference-counted by OGR; released with `OSRRelease`).
///
/// Spatial references built here use `OAMS_TRADITIONAL_GIS_ORDER`: coordinates are always
/// (x = longitude/easting, y = latitude/northing), whatever the CRS's official axis order
/// (EPSG:4326 is officially latitude first).
public final class SpatialReference {
    let handle: OGRSpatialReferenceH
    private let errors = GDALErrorCollector()

    /// A CRS from anything `OSRSetFromUserInput` accepts: "EPSG:3067", WKT, PROJ strings, "WGS84".
    public init(_ definition: String) throws(GDALError) {
        try GDALLibrary.ensureRegistered()
        guard let h = OSRNewSpatialReference(nil) else {
            throw .spatialReference("OSRNewSpatialReference returned NULL", messages: [])
        }
        let rc = errors.capture { OSRSetFromUserInput(h, definition) }
        guard rc == OGRERR_NONE else {
            OSRRelease(h)
            throw .spatialReference("cannot interpret '\(definition)'", messages: errors.takeFailures())
        }
        OSRSetAxisMappingStrategy(h, OAMS_TRADITIONAL_GIS_ORDER)
        handle = h
    }

    /// Takes a new reference to a handle owned by someone else (e.g. a layer's SRS), keeping the
    /// axis mapping it has (the driver's data axis order).
    init(retaining borrowed: OGRSpatialReferenceH) {
        OSRReference(borrowed)
        handle = borrowed
    }

    deinit { OSRRelease(handle) }

    /// WGS 84 longitude/latitude (EPSG:4326 in traditional GIS order).
    public static func wgs84() throws(GDALError) -> SpatialReference { try SpatialReference("EPSG:4326") }

    /// "EPSG:3067" style authority and code of the CRS itself, when it has one.
    public var authorityCode: String? {
        guard let name = OSRGetAuthorityName(handle, nil), let code = OSRGetAuthorityCode(handle, nil) else {
            return nil
        }
        return String(cString: name) + ":" + String(cString: code)
    }

    /// WKT2 (2019) text of the CRS.
    public var wkt: String {
        var out: UnsafeMutablePointer<CChar>?
        let rc = withConstCStringList(["FORMAT=WKT2_2019"]) { OSRExportToWktEx(handle, &out, $0) }
        defer { VSIFree(out) }
        guard rc == OGRERR_NONE, let out else { return "" }
        return String(cString: out)
    }

    /// Whether both describe the same CRS (data axis mapping ignored).
    public func isSame(as other: SpatialReference) -> Bool {
        withConstCStringList(["IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES"]) {
            OSRIsSameEx(handle, other.handle, $0)
        } != 0
    }

    /// Whether coordinates come as (longitude, latitude) for a geographic CRS whose official
    /// order is latitude first: the data axis mapping is (2, 1).
    public var hasTraditionalAxisOrder: Bool {
        var count: Int32 = 0
        guard let mapping = OSRGetDataAxisToSRSAxisMapping(handle, &count), count >= 2 else { return false }
        return mapping[0] == 2 && mapping[1] == 1
    }

    /// A short human name: the authority code ("EPSG:3067") or the CRS's name.
    public var displayName: String {
        if let code = authorityCode { return code }
        return OSRGetName(handle).map { String(cString: $0) } ?? "an unnamed CRS"
    }
}
