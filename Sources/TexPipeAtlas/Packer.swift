internal import Foundation

/// Packs sprites into as few and as small pages as the MaxRects heuristics reach (docs/atlases.md).
///
/// Each sprite becomes a rectangle of its size plus its extrusion on every side plus `padding`
/// once; the bin is the page minus its border plus `padding` once. So two rectangles that touch
/// in the bin leave exactly `padding` texels between their extruded areas, and the last column
/// of padding falls outside the page.
///
/// A page size is found by search, not grown: every size under the rule in increasing area
/// (powers of two), or widths on a grid each with the height the packing needs (`any`,
/// `multiple-of-4`), is tried with several heuristics × sort orders; the smallest page that holds
/// every sprite wins, cut to the rule's smallest size around what is on it. When even the
/// largest page cannot hold them all, pages are filled at the largest size, each with the
/// combination that places the most area, and the last page is searched again.
///
/// Deterministic: sort ties go to the sprite's index (its name order), free-rectangle ties to list
/// order; nothing depends on threads, hashes or the file system.
public struct Packer: Sendable {
    public struct Size: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// A sprite on a page: its index in the input, the top-left corner of its frame (its pixels,
    /// extrusion excluded) and whether it is stored turned 90° clockwise (it then covers h × w).
    public struct Placement: Sendable, Equatable {
        public var sprite: Int
        public var x: Int
        public var y: Int
        public var rotated: Bool
    }

    public struct Page: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var placements: [Placement]
    }

    public enum Failure: Error, Sendable, Equatable {
        /// Sprite `sprite` (its size) cannot fit even an empty page of `page` with its extrusion
        /// and the border.
        case tooLarge(sprite: Int, size: Size, needs: Size, page: Size)
    }

    public var settings: AtlasSettings
    public init(_ settings: AtlasSettings) { self.settings = settings }

    /// Sort orders tried (Jylänki §6: descending area and descending longer side do best).
    enum Order: CaseIterable {
        case area, longSide, height, width, perimeter
    }

    struct Combo {
        var order: Order
        var heuristic: MaxRectsBin.Heuristic
    }

    /// The combinations tried, fewer as the count grows (each pass costs O(n · free rectangles),
    /// contact point O(n²)): the 10,000-sprite benchmark stays within its 2 s.
    static func combos(count n: Int) -> [Combo] {
        let orders: [Order]
        let heuristics: [MaxRectsBin.Heuristic]
        switch n {
        case ..<400:
            orders = Order.allCases
            heuristics = MaxRectsBin.Heuristic.allCases
        case ..<2500:
            orders = [.area, .longSide, .height]
            heuristics = [.bestShortSide, .bestArea, .bottomLeft]
        default:
            return [
                Combo(order: .area, heuristic: .bestShortSide), Combo(order: .longSide, heuristic: .bestShortSide),
                Combo(order: .longSide, heuristic: .bottomLeft),
            ]
        }
        return heuristics.flatMap { h in orders.map { Combo(order: $0, heuristic: h) } }
    }

    /// Packs sprites of these (trimmed) sizes, in their name order.
    public func pack(_ sizes: [Size]) -> Result<[Page], Failure> {
        let s = settings
        let (limitW, limitH) = s.pageLimit
        let grow = 2 * s.extrude + s.padding
        let rects = sizes.map { Size(width: $0.width + grow, height: $0.height + grow) }
        for (i, size) in sizes.enumerated() {
            let need = Size(
                width: size.width + 2 * s.extrude + 2 * s.border, height: size.height + 2 * s.extrude + 2 * s.border)
            let fits = need.width <= limitW && need.height <= limitH
            let fitsTurned = s.rotate && need.height <= limitW && need.width <= limitH
            if !fits && !fitsTurned {
                return .failure(
                    .tooLarge(sprite: i, size: size, needs: need, page: Size(width: limitW, height: limitH)))
            }
        }
        var search = Search(rects: rects, settings: s)
        var remaining = Array(sizes.indices)
        var pages: [Page] = []
        while !remaining.isEmpty {
            if let page = search.smallestPage(remaining) {
                pages.append(page)
                break
            }
            let page = search.fullestPage(remaining)
            pages.append(page)
            let placed = Set(page.placements.map(\.sprite))
            remaining.removeAll { placed.contains($0) }
        }
        return .success(pages)
    }

    /// The search state: the padded rectangles and the settings.
    struct Search {
        let rects: [Size]
        let settings: AtlasSettings
        var order: [Order: [Int]] = [:]

        init(rects: [Size], settings: AtlasSettings) {
            self.rects = rects
            self.settings = settings
        }

        /// `items` sorted by `o`, descending, ties by index.
        func sorted(_ items: [Int], _ o: Order) -> [Int] {
            let r = rects
            func key(_ i: Int) -> (Int, Int) {
                let (w, h) = (r[i].width, r[i].height)
                switch o {
                case .area: return (w * h, max(w, h))
                case .longSide: return (max(w, h), min(w, h))
                case .height: return (h, w)
                case .width: return (w, h)
                case .perimeter: return (w + h, max(w, h))
                }
            }
            return items.sorted { a, b in
                let ka = key(a)
                let kb = key(b)
                if ka.0 != kb.0 { return ka.0 > kb.0 }
                if ka.1 != kb.1 { return ka.1 > kb.1 }
                return a < b
            }
        }

        /// One MaxRects pass over `items` (already sorted) into a page of `width` × `height`.
        /// `all`: stop at the first rectangle that fits nowhere.
        func pass(_ items: [Int], _ h: MaxRectsBin.Heuristic, width: Int, height: Int, all: Bool) -> [Placement]? {
            let s = settings
            let binW = width - 2 * s.border + s.padding
            let binH = height - 2 * s.border + s.padding
            guard binW > 0, binH > 0 else { return nil }
            var bin = MaxRectsBin(width: binW, height: binH)
            var out: [Placement] = []
            out.reserveCapacity(items.count)
            for i in items {
                guard let (r, turned) = bin.find(w: rects[i].width, h: rects[i].height, rotate: s.rotate, h) else {
                    if all { return nil }
                    continue
                }
                bin.place(r)
                out.append(
                    Placement(
                        sprite: i, x: Int(r.x) + s.border + s.extrude, y: Int(r.y) + s.border + s.extrude,
                        rotated: turned))
            }
            return out
        }

        /// The page's size under the rule around what is on it.
        func fitted(_ placements: [Placement]) -> Page {
            let s = settings
            var w = 0
            var h = 0
            for p in placements {
                let r = rects[p.sprite]
                let (pw, ph) = p.rotated ? (r.height, r.width) : (r.width, r.height)
                // The frame's origin less the extrusion, plus the padded size less the padding.
                w = max(w, p.x - s.extrude + pw - s.padding)
                h = max(h, p.y - s.extrude + ph - s.padding)
            }
            let sorted = placements.sorted { $0.sprite < $1.sprite }
            return Page(
                width: s.size.roundUp(w + s.border), height: s.size.roundUp(h + s.border), placements: sorted)
        }

        /// Every item on a page of this size, by the first combination that manages it.
        mutating func fits(_ items: [Int], width: Int, height: Int, combos: [Combo]) -> [Placement]? {
            let s = settings
            let area = items.reduce(0) { $0 + rects[$1].width * rects[$1].height }
            guard area <= (width - 2 * s.border + s.padding) * (height - 2 * s.border + s.padding) else { return nil }
            for c in combos {
                let sortedItems: [Int]
                if let known = order[c.order] {
                    sortedItems = known
                } else {
                    sortedItems = sorted(items, c.order)
                    order[c.order] = sortedItems
                }
                if let p = pass(sortedItems, c.heuristic, width: width, height: height, all: true) { return p }
            }
            return nil
        }

        /// The smallest page holding all of `items`, or nil when the largest cannot.
        mutating func smallestPage(_ items: [Int]) -> Page? {
            order = [:]
            let s = settings
            let combos = Packer.combos(count: items.count)
            let (limitW, limitH) = s.pageLimit
            guard let any = fits(items, width: limitW, height: limitH, combos: combos) else { return nil }
            var best = fitted(any)
            // Lower bounds: the padded area, and the widest/tallest sprite (its narrower side when turnable).
            let area = items.reduce(0) { $0 + rects[$1].width * rects[$1].height }
            var minW = 1
            var minH = 1
            for i in items {
                let (w, h) = (rects[i].width - s.padding + 2 * s.border, rects[i].height - s.padding + 2 * s.border)
                minW = max(minW, s.rotate ? min(w, h) : w)
                minH = max(minH, s.rotate ? min(w, h) : h)
            }
            minW = s.size.roundUp(minW)
            minH = s.size.roundUp(minH)
            func inner(_ w: Int, _ h: Int) -> Int { (w - 2 * s.border + s.padding) * (h - 2 * s.border + s.padding) }
            switch s.size {
            case .pot:
                var candidates: [(Int, Int)] = []
                var w = minW
                while w <= limitW {
                    var h = minH
                    while h <= limitH {
                        if w * h < best.width * best.height && inner(w, h) >= area { candidates.append((w, h)) }
                        h *= 2
                    }
                    w *= 2
                }
                // Smallest area first; squarer first among equals, then the wider.
                candidates.sort { a, b in
                    if a.0 * a.1 != b.0 * b.1 { return a.0 * a.1 < b.0 * b.1 }
                    let ra = max(a.0, a.1) / min(a.0, a.1)
                    let rb = max(b.0, b.1) / min(b.0, b.1)
                    if ra != rb { return ra < rb }
                    return a.0 > b.0
                }
                for (w, h) in candidates where w * h < best.width * best.height {
                    if let p = fits(items, width: w, height: h, combos: combos) {
                        let page = fitted(p)
                        if page.width * page.height < best.width * best.height { best = page }
                        break
                    }
                }
            case .any, .multipleOf4:
                // Widths on a geometric grid around the square of the padded area (aspect within
                // about 1:6 each way, wider where the widest sprite needs it); for each, one pass
                // per combination into a page of the largest height, cut to what it used: the
                // combinations fill the top first, so the height they leave is the one to beat.
                let side = Double(area).squareRoot()
                let count = items.count < 400 ? 24 : (items.count < 2500 ? 12 : 4)
                var widths: [Int] = []
                func grid(_ low: Double, _ high: Double, _ count: Int) {
                    for k in 0..<count {
                        let w = low * pow(high / max(low, 1), Double(k) / Double(max(1, count - 1)))
                        let r = min(limitW, s.size.roundUp(Int(w.rounded())))
                        if r >= minW && !widths.contains(r) { widths.append(r) }
                    }
                }
                let low = max(Double(minW), side / 2.5)
                grid(low, min(Double(limitW), max(side * 2.5, low)), count)
                // Few sprites: long thin pages too (a column of tiny sprites can be the smallest).
                if items.count <= 1000 { grid(Double(minW), Double(limitW), 12) }
                // Those nearest the square first: they set a tight bound early.
                widths.sort {
                    abs(Double($0) - side) < abs(Double($1) - side)
                        || (abs(Double($0) - side) == abs(Double($1) - side) && $0 < $1)
                }
                for w in widths {
                    // No height at this width can beat the best when even a perfect fill could not.
                    let bound = s.size.roundUp(area / (w - 2 * s.border + s.padding) + 2 * s.border - s.padding)
                    guard w * bound < best.width * best.height else { continue }
                    for c in combos {
                        let sortedItems = order[c.order] ?? sorted(items, c.order)
                        order[c.order] = sortedItems
                        guard let p = pass(sortedItems, c.heuristic, width: w, height: limitH, all: true) else {
                            continue
                        }
                        let page = fitted(p)
                        if page.width * page.height < best.width * best.height
                            || (page.width * page.height == best.width * best.height && page.width < best.width)
                        {
                            best = page
                        }
                    }
                }
            }
            return best
        }

        /// A page of the largest size filled by the combination that places the most area.
        mutating func fullestPage(_ items: [Int]) -> Page {
            order = [:]
            let (limitW, limitH) = settings.pageLimit
            var best: [Placement] = []
            var bestArea = -1
            for c in Packer.combos(count: items.count) {
                let sortedItems = order[c.order] ?? sorted(items, c.order)
                order[c.order] = sortedItems
                let p = pass(sortedItems, c.heuristic, width: limitW, height: limitH, all: false) ?? []
                let a = p.reduce(0) { $0 + rects[$1.sprite].width * rects[$1.sprite].height }
                if a > bestArea {
                    bestArea = a
                    best = p
                }
            }
            return fitted(best)
        }
    }
}
