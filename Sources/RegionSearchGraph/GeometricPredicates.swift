/// Exact-sign orientation and in-circle tests (Shewchuk's adaptive-precision predicates).
///
/// Both return a double whose *sign* is always correct for the given double inputs; its
/// magnitude is only an approximation of the determinant. A cheap floating-point evaluation with
/// a forward error bound decides almost every call; only near-degenerate configurations
/// (nearly collinear or nearly cocircular points) fall through to exact expansion arithmetic.
///
/// Valid when no intermediate product overflows or underflows: coordinates that are 0 or of
/// magnitude 1e-30…1e30, which ``GraphBuilder`` checks on input.
enum GeometricPredicates {
    private typealias E = ExpansionArithmetic
    private static let eps = E.epsilon
    private static let resultErrBound = (3.0 + 8.0 * eps) * eps
    private static let ccwErrBoundA = (3.0 + 16.0 * eps) * eps
    private static let ccwErrBoundB = (2.0 + 12.0 * eps) * eps
    private static let ccwErrBoundC = (9.0 + 64.0 * eps) * eps * eps
    private static let iccErrBoundA = (10.0 + 96.0 * eps) * eps
    private static let iccErrBoundB = (4.0 + 48.0 * eps) * eps

    /// Positive when a, b, c turn counter-clockwise (c left of the line a→b), negative when
    /// clockwise, zero when collinear — exactly.
    @inline(__always)
    static func orient2d(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
        -> Double
    {
        let detleft = (ax - cx) * (by - cy)
        let detright = (ay - cy) * (bx - cx)
        let det = detleft - detright
        let detsum: Double
        if detleft > 0 {
            if detright <= 0 { return det }
            detsum = detleft + detright
        } else if detleft < 0 {
            if detright >= 0 { return det }
            detsum = -detleft - detright
        } else {
            return det
        }
        let errbound = ccwErrBoundA * detsum
        if det >= errbound || -det >= errbound { return det }
        return orient2dAdapt(ax, ay, bx, by, cx, cy, detsum)
    }

    @inline(never)
    static func orient2dAdapt(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
        _ detsum: Double
    ) -> Double {
        let acx = ax - cx
        let bcx = bx - cx
        let acy = ay - cy
        let bcy = by - cy
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 48) { buf -> Double in
            let b = buf.baseAddress!
            let u = b + 4
            let c1 = b + 8
            let c2 = b + 16
            let d = b + 28
            let (detleft, detlefttail) = E.twoProduct(acx, bcy)
            let (detright, detrighttail) = E.twoProduct(acy, bcx)
            (b[3], b[2], b[1], b[0]) = E.twoTwoDiff(detleft, detlefttail, detright, detrighttail)
            var det = E.estimate(4, b)
            var errbound = ccwErrBoundB * detsum
            if det >= errbound || -det >= errbound { return det }

            let acxtail = E.twoDiffTail(ax, cx, acx)
            let bcxtail = E.twoDiffTail(bx, cx, bcx)
            let acytail = E.twoDiffTail(ay, cy, acy)
            let bcytail = E.twoDiffTail(by, cy, bcy)
            if acxtail == 0 && acytail == 0 && bcxtail == 0 && bcytail == 0 { return det }

            errbound = ccwErrBoundC * detsum + resultErrBound * abs(det)
            det += (acx * bcytail + bcy * acxtail) - (acy * bcxtail + bcx * acytail)
            if det >= errbound || -det >= errbound { return det }

            var (s1, s0) = E.twoProduct(acxtail, bcy)
            var (t1, t0) = E.twoProduct(acytail, bcx)
            (u[3], u[2], u[1], u[0]) = E.twoTwoDiff(s1, s0, t1, t0)
            let c1len = E.sum(4, b, 4, u, c1)

            (s1, s0) = E.twoProduct(acx, bcytail)
            (t1, t0) = E.twoProduct(acy, bcxtail)
            (u[3], u[2], u[1], u[0]) = E.twoTwoDiff(s1, s0, t1, t0)
            let c2len = E.sum(c1len, c1, 4, u, c2)

            (s1, s0) = E.twoProduct(acxtail, bcytail)
            (t1, t0) = E.twoProduct(acytail, bcxtail)
            (u[3], u[2], u[1], u[0]) = E.twoTwoDiff(s1, s0, t1, t0)
            let dlen = E.sum(c2len, c2, 4, u, d)
            return d[dlen - 1]
        }
    }

    /// Positive when d lies strictly inside the circle through a, b, c and a, b, c turn
    /// counter-clockwise (the sign flips for clockwise a, b, c); zero when the four points are
    /// cocircular — exactly.
    @inline(__always)
    static func incircle(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
        _ dx: Double, _ dy: Double
    ) -> Double {
        let adx = ax - dx
        let bdx = bx - dx
        let cdx = cx - dx
        let ady = ay - dy
        let bdy = by - dy
        let cdy = cy - dy
        let bdxcdy = bdx * cdy
        let cdxbdy = cdx * bdy
        let alift = adx * adx + ady * ady
        let cdxady = cdx * ady
        let adxcdy = adx * cdy
        let blift = bdx * bdx + bdy * bdy
        let adxbdy = adx * bdy
        let bdxady = bdx * ady
        let clift = cdx * cdx + cdy * cdy
        let det = alift * (bdxcdy - cdxbdy) + blift * (cdxady - adxcdy) + clift * (adxbdy - bdxady)
        let permanent =
            (abs(bdxcdy) + abs(cdxbdy)) * alift + (abs(cdxady) + abs(adxcdy)) * blift
            + (abs(adxbdy) + abs(bdxady)) * clift
        let errbound = iccErrBoundA * permanent
        if det > errbound || -det > errbound { return det }
        return incircleAdapt(ax, ay, bx, by, cx, cy, dx, dy, permanent)
    }

    /// Stage B of Shewchuk's incircle: the determinant of the *rounded* differences, computed
    /// exactly. It decides when its error bound allows or when the differences were exact (as on
    /// grids, the common cocircular case); otherwise the fully exact evaluation runs.
    @inline(never)
    static func incircleAdapt(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
        _ dx: Double, _ dy: Double, _ permanent: Double
    ) -> Double {
        let adx = ax - dx
        let bdx = bx - dx
        let cdx = cx - dx
        let ady = ay - dy
        let bdy = by - dy
        let cdy = cy - dy
        let det = withUnsafeTemporaryAllocation(of: Double.self, capacity: 480) { buf -> Double in
            let base = buf.baseAddress!
            let pair = base  // 4
            let t8 = base + 4  // 8
            let xx = base + 12  // 16
            let t8y = base + 28  // 8
            let yy = base + 36  // 16
            let adet = base + 52
            let bdet = base + 84
            let cdet = base + 116  // 32 each
            let abdet = base + 148  // 64
            let fin = base + 212  // 96

            func lifted(
                _ px: Double, _ py: Double, _ q1x: Double, _ q1y: Double, _ q2x: Double, _ q2y: Double,
                _ out: UnsafeMutablePointer<Double>
            ) -> Int {
                // (q1x·q2y − q2x·q1y) · (px² + py²), exactly.
                let (p1, p0) = E.twoProduct(q1x, q2y)
                let (r1, r0) = E.twoProduct(q2x, q1y)
                (pair[3], pair[2], pair[1], pair[0]) = E.twoTwoDiff(p1, p0, r1, r0)
                let xt = E.scale(4, pair, px, t8)
                let xxl = E.scale(xt, t8, px, xx)
                let yt = E.scale(4, pair, py, t8y)
                let yyl = E.scale(yt, t8y, py, yy)
                return E.sum(xxl, xx, yyl, yy, out)
            }
            let alen = lifted(adx, ady, bdx, bdy, cdx, cdy, adet)
            let blen = lifted(bdx, bdy, cdx, cdy, adx, ady, bdet)
            let clen = lifted(cdx, cdy, adx, ady, bdx, bdy, cdet)
            let ablen = E.sum(alen, adet, blen, bdet, abdet)
            let finlen = E.sum(ablen, abdet, clen, cdet, fin)
            return E.estimate(finlen, fin)
        }
        let errbound = iccErrBoundB * permanent
        if det >= errbound || -det >= errbound { return det }
        if E.twoDiffTail(ax, dx, adx) == 0 && E.twoDiffTail(bx, dx, bdx) == 0 && E.twoDiffTail(cx, dx, cdx) == 0
            && E.twoDiffTail(ay, dy, ady) == 0 && E.twoDiffTail(by, dy, bdy) == 0 && E.twoDiffTail(cy, dy, cdy) == 0
        {
            return det
        }
        return incircleExact(ax, ay, bx, by, cx, cy, dx, dy)
    }

    /// The in-circle determinant evaluated exactly from the original coordinates.
    @inline(never)
    static func incircleExact(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
        _ dx: Double, _ dy: Double
    ) -> Double {
        let adx = E.difference(ax, dx)
        let ady = E.difference(ay, dy)
        let bdx = E.difference(bx, dx)
        let bdy = E.difference(by, dy)
        let cdx = E.difference(cx, dx)
        let cdy = E.difference(cy, dy)
        func cross(_ px: [Double], _ py: [Double], _ qx: [Double], _ qy: [Double]) -> [Double] {
            E.sum(E.product(px, qy), E.negated(E.product(qx, py)))
        }
        func lift(_ px: [Double], _ py: [Double]) -> [Double] { E.sum(E.product(px, px), E.product(py, py)) }
        let a = E.product(lift(adx, ady), cross(bdx, bdy, cdx, cdy))
        let b = E.product(lift(bdx, bdy), cross(cdx, cdy, adx, ady))
        let c = E.product(lift(cdx, cdy), cross(adx, ady, bdx, bdy))
        return E.sign(E.sum(E.sum(a, b), c))
    }
}
