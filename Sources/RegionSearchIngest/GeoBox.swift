import Foundation
import RegionSearchCore

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
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let values = parts.compactMap { ValueSyntax.number($0) }
        guard parts.count == 4, values.count == 4 else {
            return .failure(
                UsageError("expected west,south,east,north in degrees (e.g. 29.4,59.6,30.8,60.3), got \"\(text)\""))
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

    /// Parses a map's extent (`maps.bbox`, `regionsearch preview --bbox`): as ``parse(_:)``, and
    /// with some width and height, west of east. A map is drawn on a plane round its centre, so a
    /// box across the antimeridian (west > east, which an ingest filter takes) or one without width
    /// or height had drawn a map of some other extent without a word.
    public static func parseMapExtent(_ text: String) -> Result<GeoBox, UsageError> {
        switch parse(text) {
        case .failure(let e): return .failure(e)
        case .success(let b):
            guard b.west < b.east else {
                return .failure(
                    UsageError(
                        "west (\(JSONValue.formatNumber(b.west))) must be west of east (\(JSONValue.formatNumber(b.east))): "
                            + "a map's extent has some width and does not cross the antimeridian, got \"\(text)\""))
            }
            guard b.south < b.north else {
                return .failure(
                    UsageError(
                        "south and north are both \(JSONValue.formatNumber(b.south)): a map's extent has some height, "
                            + "got \"\(text)\""))
            }
            return .success(b)
        }
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
