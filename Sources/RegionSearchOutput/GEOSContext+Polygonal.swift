import CGEOS

/// Polygons with holes, multipolygons, unions of many geometries: what evaluating region files
/// (holes, MultiPolygons, overlapping regions) needs beyond the hull builder's single rings.
extension GEOSContext {
    /// A polygon from an exterior ring and holes (each ring closed automatically).
    public func polygon(rings: [(x: [Double], y: [Double])]) throws(GEOSError) -> GEOSGeometry {
        guard let exterior = rings.first else { return try emptyPolygon() }
        func ring(_ r: (x: [Double], y: [Double])) throws(GEOSError) -> OpaquePointer {
            var xs = r.x
            var ys = r.y
            if let fx = xs.first, let fy = ys.first, fx != xs.last || fy != ys.last {
                xs.append(fx)
                ys.append(fy)
            }
            let seq = try sequence(x: xs, y: ys)
            guard let g = GEOSGeom_createLinearRing_r(handle, seq) else { throw error("GEOS linear ring") }
            return g
        }
        let shell = try ring(exterior)
        var holes: [OpaquePointer?] = []
        for r in rings.dropFirst() {
            do {
                holes.append(try ring(r))
            } catch {
                GEOSGeom_destroy_r(handle, shell)
                for h in holes { GEOSGeom_destroy_r(handle, h) }
                throw error
            }
        }
        let g = holes.withUnsafeMutableBufferPointer { buf in
            GEOSGeom_createPolygon_r(handle, shell, buf.baseAddress, UInt32(buf.count))
        }
        return try wrap(g, "polygon")
    }

    /// A LineString through the given points (at least two).
    public func lineString(x: [Double], y: [Double]) throws(GEOSError) -> GEOSGeometry {
        let seq = try sequence(x: x, y: y)
        return try wrap(GEOSGeom_createLineString_r(handle, seq), "line string")
    }

    /// An empty polygon (the union of nothing).
    func emptyPolygon() throws(GEOSError) -> GEOSGeometry {
        try wrap(GEOSGeom_createEmptyPolygon_r(handle), "empty polygon")
    }

    /// A MultiPolygon holding clones of `parts` (polygons), for targets that do not import GEOS.
    public func multiPolygon(of parts: [GEOSGeometry]) throws(GEOSError) -> GEOSGeometry {
        try collection(GEOS_MULTIPOLYGON, of: parts)
    }

    /// A collection of the given type (e.g. `GEOS_MULTIPOLYGON`) holding clones of `parts`.
    func collection(_ type: GEOSGeomTypes, of parts: [GEOSGeometry]) throws(GEOSError) -> GEOSGeometry {
        var clones: [OpaquePointer?] = []
        clones.reserveCapacity(parts.count)
        for p in parts {
            guard let c = GEOSGeom_clone_r(handle, p.pointer) else {
                for c in clones { GEOSGeom_destroy_r(handle, c) }
                throw error("GEOS clone")
            }
            clones.append(c)
        }
        let g = clones.withUnsafeMutableBufferPointer { buf in
            GEOSGeom_createCollection_r(handle, Int32(type.rawValue), buf.baseAddress, UInt32(buf.count))
        }
        return try wrap(g, "collection")
    }

    /// The union of many polygonal geometries in one cascaded operation (empty polygon for none).
    public func unionAll(_ geometries: [GEOSGeometry]) throws(GEOSError) -> GEOSGeometry {
        if geometries.isEmpty { return try emptyPolygon() }
        let bag = try collection(GEOS_GEOMETRYCOLLECTION, of: geometries)
        return try bag.unaryUnion()
    }
}

extension GEOSGeometry {
    /// The bounding box, or nil for an empty geometry.
    public var envelope: GEOSEnvelope? {
        if isEmpty { return nil }
        let h = context.handle
        var e = GEOSEnvelope(minX: 0, minY: 0, maxX: 0, maxY: 0)
        guard GEOSGeom_getXMin_r(h, pointer, &e.minX) == 1, GEOSGeom_getYMin_r(h, pointer, &e.minY) == 1,
            GEOSGeom_getXMax_r(h, pointer, &e.maxX) == 1, GEOSGeom_getYMax_r(h, pointer, &e.maxY) == 1
        else { return nil }
        return e
    }

    /// The polygons of a Polygon or MultiPolygon, in order.
    public func polygons() throws(GEOSError) -> [GEOSGeometry] {
        if isPolygon { return isEmpty ? [] : [self] }
        var out: [GEOSGeometry] = []
        for i in 0..<geometryCount { out += try part(i).polygons() }
        return out
    }

    /// The number of holes of a polygon (0 for any other geometry).
    public var interiorRingCount: Int {
        guard isPolygon else { return 0 }
        return max(0, Int(GEOSGetNumInteriorRings_r(context.handle, pointer)))
    }

    /// All rings of a polygon: the exterior first, then the holes (each closed).
    public func rings() throws(GEOSError) -> [(x: [Double], y: [Double])] {
        let h = context.handle
        guard isPolygon else { throw context.error("GEOS rings of a non-polygon") }
        var out = [try exteriorRing()]
        let holes = GEOSGetNumInteriorRings_r(h, pointer)
        guard holes >= 0 else { throw context.error("GEOS interior ring count") }
        for i in 0..<holes {
            guard let ring = GEOSGetInteriorRingN_r(h, pointer, i), let seq = GEOSGeom_getCoordSeq_r(h, ring) else {
                throw context.error("GEOS interior ring")
            }
            var size: UInt32 = 0
            GEOSCoordSeq_getSize_r(h, seq, &size)
            var xs = [Double](repeating: 0, count: Int(size))
            var ys = [Double](repeating: 0, count: Int(size))
            for k in 0..<Int(size) { GEOSCoordSeq_getXY_r(h, seq, UInt32(k), &xs[k], &ys[k]) }
            out.append((xs, ys))
        }
        return out
    }

    /// GEOS's unary union: dissolves overlaps between the parts of a collection.
    func unaryUnion() throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSUnaryUnion_r(context.handle, pointer), "unary union")
    }

    /// The polygons of this geometry (recursing into collections), as a Polygon or MultiPolygon;
    /// points and lines, which have no area, are left out. An empty polygon when there are none.
    ///
    /// `MakeValid` can turn a degenerate polygon into a collection with lines; overlay operations in
    /// GEOS 3.11 reject such mixed collections, and the lines carry no area anyway.
    public func polygonalParts() throws(GEOSError) -> GEOSGeometry {
        let type = typeID
        if type == Int32(GEOS_POLYGON.rawValue) || type == Int32(GEOS_MULTIPOLYGON.rawValue) { return self }
        var polygons: [GEOSGeometry] = []
        try collectPolygons(into: &polygons)
        if polygons.isEmpty { return try context.emptyPolygon() }
        if polygons.count == 1 { return polygons[0] }
        return try context.collection(GEOS_MULTIPOLYGON, of: polygons)
    }

    private func collectPolygons(into out: inout [GEOSGeometry]) throws(GEOSError) {
        let type = typeID
        if type == Int32(GEOS_POLYGON.rawValue) {
            if !isEmpty { out.append(self) }
            return
        }
        guard type == Int32(GEOS_MULTIPOLYGON.rawValue) || type == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) else {
            return
        }
        for i in 0..<geometryCount { try part(i).collectPolygons(into: &out) }
    }

    /// A prepared version for fast repeated point tests (keeps `self` alive).
    public func prepared() throws(GEOSError) -> GEOSPreparedGeometry {
        guard let p = GEOSPrepare_r(context.handle, pointer) else { throw context.error("GEOS prepare") }
        return GEOSPreparedGeometry(geometry: self, pointer: p)
    }
}
