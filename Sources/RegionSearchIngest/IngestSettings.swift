/// The ingest stage's parameters that apply to all inputs.
public struct IngestSettings: Sendable {
    /// What to do with a record whose id was already seen in the same input file.
    public enum DuplicatePolicy: String, CaseIterable, Sendable {
        /// Keep the first record, drop the later ones (counted as `dropped_duplicates`).
        case keepFirst = "keep_first"
        /// Keep the first record's name and coordinates and add the later records' keyword
        /// values to it (counted as `merged_duplicates`). The default: real dumps list one
        /// place under several categories this way.
        case merge
        /// Keep every record as its own POI (counted in `accepted` and as `kept_duplicates`).
        case keepAll = "keep_all"
    }

    public var duplicates = DuplicatePolicy.merge
    /// Fail when more than this share of an input's records is rejected.
    public var maxRejectRatio = 0.1
    /// Reject records outside this box (WGS84, after conversion).
    public var bbox: GeoBox?
    /// Reject records at exactly lon = lat = 0 (a common "no coordinates" placeholder).
    public var rejectNullIsland = true
    /// Add the name to the keyword values.
    public var nameAsKeyword = false

    public init() {}
}

/// A longitude/latitude box; `west > east` means it crosses the antimeridian.
public struct GeoBox: Sendable, Equatable, CustomStringConvertible {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Parses `west,south,east,north` (degrees); nil with a reason when malformed.
    public static func parse(_ text: String) -> Result<GeoBox, UsageError> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let values = parts.compactMap { Double($0) }
        guard parts.count == 4, values.count == 4, values.allSatisfy({ $0.isFinite }) else {
            return .failure(UsageError("expected west,south,east,north in degrees (e.g. 29.4,59.6,30.8,60.3), got \"\(text)\""))
        }
        let b = GeoBox(west: values[0], south: values[1], east: values[2], north: values[3])
        guard abs(b.west) <= 180, abs(b.east) <= 180, abs(b.south) <= 90, abs(b.north) <= 90 else {
            return .failure(UsageError("longitudes must be within ±180 and latitudes within ±90, got \"\(text)\""))
        }
        guard b.south <= b.north else {
            return .failure(UsageError("south (\(values[1])) is north of north (\(values[3]))"))
        }
        return .success(b)
    }

    @inline(__always)
    public func contains(lon: Double, lat: Double) -> Bool {
        guard lat >= south && lat <= north else { return false }
        return west <= east ? (lon >= west && lon <= east) : (lon >= west || lon <= east)
    }

    public var description: String {
        [west, south, east, north].map { JSONValue.formatNumber($0) }.joined(separator: ",")
    }
}

import Foundation
import RegionSearchCore
