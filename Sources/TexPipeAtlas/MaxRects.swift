/// One bin of the MaxRects packer (Jylänki, "A Thousand Ways to Pack the Bin", 2010, §5): the
/// free space is kept as the list of *maximal* free rectangles, which may overlap. A placement
/// picks a free rectangle by a heuristic, then every free rectangle it intersects is split into up
/// to four maximal remainders, and remainders contained in another free rectangle are pruned.
///
/// Cost per placement: O(F) scoring plus O(F · new) pruning for F free rectangles (only the new
/// remainders are checked against the rest, which is all the pruning needs: an old rectangle
/// cannot newly contain another old one). Contact point scoring adds O(U) per candidate.
/// Integers only, no allocation per placement beyond the lists' growth; ties go to the first free
/// rectangle in list order, so a packing depends only on its inputs.
struct MaxRectsBin {
    struct Rect: Equatable {
        var x: Int32
        var y: Int32
        var w: Int32
        var h: Int32
        @inline(__always) func contains(_ o: Rect) -> Bool {
            o.x >= x && o.y >= y && o.x + o.w <= x + w && o.y + o.h <= y + h
        }
    }

    /// Jylänki's free-rectangle choice rules.
    enum Heuristic: CaseIterable, Sendable {
        /// Best short side fit: the smallest leftover on the short side, then the long side.
        case bestShortSide
        /// Best area fit: the smallest leftover area, then the short side.
        case bestArea
        /// Bottom-left (Tetris): the lowest top edge, then the leftmost.
        case bottomLeft
        /// Contact point: the longest perimeter touching the bin's edges and placed rectangles.
        case contactPoint
    }

    let width: Int32
    let height: Int32
    /// Free rectangles as (x0, y0, −x1, −y1): `a` contains `b` exactly when every lane of `b` is
    /// ≥ `a`'s, one vector compare (the containment tests are most of the work).
    private(set) var free: [SIMD4<Int32>]
    private(set) var used: [Rect] = []
    private var fresh: [SIMD4<Int32>] = []

    @inline(__always) static func packed(_ r: Rect) -> SIMD4<Int32> { SIMD4(r.x, r.y, -(r.x + r.w), -(r.y + r.h)) }
    @inline(__always) static func unpacked(_ v: SIMD4<Int32>) -> Rect {
        Rect(x: v[0], y: v[1], w: -v[2] - v[0], h: -v[3] - v[1])
    }

    init(width: Int, height: Int) {
        self.width = Int32(width)
        self.height = Int32(height)
        free = [Self.packed(Rect(x: 0, y: 0, w: Int32(width), h: Int32(height)))]
        free.reserveCapacity(256)
    }

    /// Where a w × h rectangle (or h × w when `rotate`) would go, and whether turned; nil when it
    /// fits nowhere. Scores are minimised: (primary, secondary).
    func find(w: Int, h: Int, rotate: Bool, _ heuristic: Heuristic) -> (rect: Rect, rotated: Bool)? {
        let w = Int32(w)
        let h = Int32(h)
        var best: (Rect, Bool)?
        var s1 = Int64.max
        var s2 = Int64.max
        @inline(__always) func consider(_ f: Rect, _ rw: Int32, _ rh: Int32, _ turned: Bool) {
            guard f.w >= rw && f.h >= rh else { return }
            let a: Int64
            let b: Int64
            switch heuristic {
            case .bestShortSide:
                let dx = Int64(f.w - rw)
                let dy = Int64(f.h - rh)
                a = min(dx, dy)
                b = max(dx, dy)
            case .bestArea:
                a = Int64(f.w) * Int64(f.h) - Int64(rw) * Int64(rh)
                b = min(Int64(f.w - rw), Int64(f.h - rh))
            case .bottomLeft:
                a = Int64(f.y + rh)
                b = Int64(f.x)
            case .contactPoint:
                a = -contact(Rect(x: f.x, y: f.y, w: rw, h: rh))
                b = 0
            }
            if a < s1 || (a == s1 && b < s2) {
                s1 = a
                s2 = b
                best = (Rect(x: f.x, y: f.y, w: rw, h: rh), turned)
            }
        }
        for v in free {
            let f = Self.unpacked(v)
            consider(f, w, h, false)
            if rotate && w != h { consider(f, h, w, true) }
        }
        return best.map { (rect: $0.0, rotated: $0.1) }
    }

    /// Perimeter of `r` touching the bin's edges or a placed rectangle.
    private func contact(_ r: Rect) -> Int64 {
        var score: Int64 = 0
        if r.x == 0 || r.x + r.w == width { score += Int64(r.h) }
        if r.y == 0 || r.y + r.h == height { score += Int64(r.w) }
        for u in used {
            if u.x == r.x + r.w || u.x + u.w == r.x {
                score += Int64(max(0, min(u.y + u.h, r.y + r.h) - max(u.y, r.y)))
            }
            if u.y == r.y + r.h || u.y + u.h == r.y {
                score += Int64(max(0, min(u.x + u.w, r.x + r.w) - max(u.x, r.x)))
            }
        }
        return score
    }

    /// Takes `r` out of the free space: splits what it intersects (kept in order, compacted in
    /// place), then drops each new remainder contained in an old free rectangle or in another new
    /// one. An old rectangle is never inside a new remainder: the remainder lies inside an old
    /// rectangle, and the old list held no rectangle inside another (Jylänki's RectangleBinPack
    /// makes the same argument), so only the new ones need checking.
    mutating func place(_ r: Rect) {
        fresh.removeAll(keepingCapacity: true)
        // r intersects f ⟺ (r.x0, r.y0, −r.x1, −r.y1) < (f.x1, f.y1, −f.x0, −f.y0) in every lane.
        let rv = Self.packed(r)
        let (rx0, ry0, rx1, ry1) = (r.x, r.y, r.x + r.w, r.y + r.h)
        var kept = 0
        let n = free.count
        free.withUnsafeMutableBufferPointer { list in
            for i in 0..<n {
                let v = list[i]
                let far = SIMD4<Int32>(-v[2], -v[3], -v[0], -v[1])
                if any(rv .>= far) {
                    list[kept] = v
                    kept += 1
                    continue
                }
                let (fx0, fy0, fx1, fy1) = (v[0], v[1], -v[2], -v[3])
                if rx0 > fx0 { fresh.append(SIMD4(fx0, fy0, -rx0, -fy1)) }
                if rx1 < fx1 { fresh.append(SIMD4(rx1, fy0, -fx1, -fy1)) }
                if ry0 > fy0 { fresh.append(SIMD4(fx0, fy0, -fx1, -ry0)) }
                if ry1 < fy1 { fresh.append(SIMD4(fx0, ry1, -fx1, -fy1)) }
            }
        }
        free.removeLast(n - kept)
        // New remainders: dropped when inside an old one, or inside (or equal to, and after) another new one.
        var k = 0
        while k < fresh.count {
            let a = fresh[k]
            var dead = false
            for f in free where all(a .>= f) {
                dead = true
                break
            }
            if !dead {
                for j in fresh.indices where j != k && all(a .>= fresh[j]) && (fresh[j] != a || j < k) {
                    dead = true
                    break
                }
            }
            if dead {
                fresh.remove(at: k)
            } else {
                k += 1
            }
        }
        free.append(contentsOf: fresh)
        used.append(r)
    }
}
