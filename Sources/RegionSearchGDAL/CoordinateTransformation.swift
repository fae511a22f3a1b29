import CGDAL

/// Owns an `OGRCoordinateTransformationH` from a source CRS to a target CRS (by default WGS 84
/// lon/lat in traditional GIS order).
///
/// Both ends keep their data axis mapping: the target built by ``SpatialReference/wgs84()`` is
/// `OAMS_TRADITIONAL_GIS_ORDER` (x = longitude), and a layer's SRS carries the order in which its
/// driver delivers coordinates (OGR drivers set traditional order on the SRS they return).
public final class CoordinateTransformation {
    let handle: OGRCoordinateTransformationH
    public let source: SpatialReference
    public let target: SpatialReference
    private let errors = GDALErrorCollector()

    public init(from source: SpatialReference, to target: SpatialReference) throws(GDALError) {
        let h = errors.capture { OCTNewCoordinateTransformation(source.handle, target.handle) }
        guard let h else {
            throw .spatialReference(
                "no transformation from \(source.displayName) to \(target.displayName)",
                messages: errors.takeFailures())
        }
        handle = h
        self.source = source
        self.target = target
    }

    deinit { OCTDestroyCoordinateTransformation(handle) }

    /// Transforms coordinates in place in one `OCTTransformEx` call; returns per-point success.
    public func transform(x: inout [Double], y: inout [Double]) -> [Bool] {
        precondition(x.count == y.count)
        let n = x.count
        guard n > 0 else { return [] }
        var ok = [Int32](repeating: 0, count: n)
        errors.capture {
            _ = OCTTransformEx(handle, Int32(n), &x, &y, nil, &ok)
        }
        _ = errors.takeFailures()  // per-point failures are reported through `ok`
        return ok.map { $0 != 0 }
    }

    /// Transforms one point; nil when PROJ cannot transform it.
    public func transform(x: Double, y: Double) -> (x: Double, y: Double)? {
        var xs = [x]
        var ys = [y]
        let ok = transform(x: &xs, y: &ys)
        guard ok[0], xs[0].isFinite, ys[0].isFinite else { return nil }
        return (xs[0], ys[0])
    }
}
