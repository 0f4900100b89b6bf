public import TexPipeParameters
public import TexPipePixels

/// `bleed`: fills the RGB of pixels with alpha ≤ `threshold` from the nearest pixels above it,
/// ring by ring: each ring gives every unfilled pixel that has filled 8-neighbours the mean of
/// those neighbours (rounded half up), then counts as filled. Alpha is unchanged. docs/stages.md.
///
/// Rings are found breadth-first, so the whole image costs O(pixels), not O(pixels × rings).
/// With `radius`, rings stop after that many; pixels left unreached get RGB 0 (like an image with
/// no pixel above the threshold at all) and their count is noted in the job's result.
public struct Bleed: Stage {
    public static let name = "bleed"
    public static let summary = "fills the color under transparent pixels from their nearest visible neighbours"
    public static let identity = #"{}"#
    public static let parameters: [Parameter] = [
        .number("threshold", in: 0...1, default: 0, doc: "pixels with alpha at or below this fraction get filled"),
        Parameter(
            "radius", .integer(1...65536), .optional(absentDoc: "unlimited"),
            doc: "at most this many rings; pixels beyond get RGB 0 and are reported"),
    ]

    public var threshold: Double
    public var radius: Int?

    public init(_ a: Arguments) {
        threshold = a.number("threshold")
        radius = a.optionalInteger("radius")
    }

    /// The table's defaults for what is not given.
    public init(threshold: Double? = nil, radius: Int? = nil) {
        self.init(
            .defaults(
                of: Self.parameters,
                ["threshold": threshold.map { .number($0) }, "radius": radius.map { .integer($0) }]))
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        try input.requireAlpha(.straight, for: Self.name)
        return [input]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        let (out, unreached) = bled(image)
        if let radius, unreached > 0 {
            context.notes.append("\(unreached) pixels not reached within radius \(radius); their RGB is 0")
        }
        return [out]
    }

    /// The bled image and how many pixels no ring reached (all of them when no pixel is above
    /// the threshold).
    public func bled(_ image: __owned Image) -> (image: Image, unreached: Int) {
        var out = consume image
        var unreached = 0
        let (w, h, t, r) = (out.width, out.height, threshold, radius)
        out.pixels.modify(
            { p in
                unreached = p.withUnsafeMutableBufferPointer {
                    Bleed.fill($0, width: w, height: h, threshold: t, radius: r)
                }
            },
            { p in
                unreached = p.withUnsafeMutableBufferPointer {
                    Bleed.fill($0, width: w, height: h, threshold: t, radius: r)
                }
            })
        return (out, unreached)
    }

    /// The ring fill over one RGBA buffer; returns the number of unreached pixels.
    static func fill<C: PixelChannel>(
        _ p: UnsafeMutableBufferPointer<C>, width w: Int, height h: Int, threshold: Double, radius: Int?
    ) -> Int {
        let n = w * h
        let limit = threshold * Double(C.maxValue)
        // 0 unfilled, 1 filled, 2 unfilled and queued for the next ring.
        var state = [UInt8](repeating: 0, count: n)
        var filledCount = 0
        for i in 0..<n where Double(p[i * 4 + 3]) > limit {
            state[i] = 1
            filledCount += 1
        }
        if filledCount == n { return 0 }
        var ring: [Int32] = []
        /// The in-bounds 3×3 block around pixel i (the pixel itself included; callers skip it).
        @inline(__always) func block(_ i: Int) -> (x: Int, y: Int, xs: ClosedRange<Int>, ys: ClosedRange<Int>) {
            let (x, y) = (i % w, i / w)
            return (x, y, max(0, x - 1)...min(w - 1, x + 1), max(0, y - 1)...min(h - 1, y + 1))
        }
        func enqueueNeighbours(of i: Int) {
            let b = block(i)
            for yy in b.ys {
                for xx in b.xs where (xx != b.x || yy != b.y) && state[yy * w + xx] == 0 {
                    state[yy * w + xx] = 2
                    ring.append(Int32(yy * w + xx))
                }
            }
        }
        if filledCount > 0 {
            for i in 0..<n where state[i] == 1 {
                // Only filled pixels on the boundary of the filled set start rings.
                enqueueNeighbours(of: i)
            }
        }
        var values = [C](repeating: 0, count: 0)
        var rings = 0
        while !ring.isEmpty, radius == nil || rings < radius! {
            rings += 1
            values.removeAll(keepingCapacity: true)
            for r in ring {
                let b = block(Int(r))
                var sum = (0, 0, 0)
                var count = 0
                for yy in b.ys {
                    for xx in b.xs where state[yy * w + xx] == 1 {
                        // The pixel itself is unfilled (it is in the ring), so it never counts.
                        let j = (yy * w + xx) * 4
                        sum.0 += Int(p[j])
                        sum.1 += Int(p[j + 1])
                        sum.2 += Int(p[j + 2])
                        count += 1
                    }
                }
                values.append(C(truncatingIfNeeded: Rounding.divRound(sum.0, count)))
                values.append(C(truncatingIfNeeded: Rounding.divRound(sum.1, count)))
                values.append(C(truncatingIfNeeded: Rounding.divRound(sum.2, count)))
            }
            for (k, r) in ring.enumerated() {
                let i = Int(r)
                p[i * 4] = values[k * 3]
                p[i * 4 + 1] = values[k * 3 + 1]
                p[i * 4 + 2] = values[k * 3 + 2]
                state[i] = 1
            }
            let current = ring
            ring.removeAll(keepingCapacity: true)
            for r in current { enqueueNeighbours(of: Int(r)) }
        }
        // Whatever no ring reached: RGB 0.
        var unreached = 0
        for i in 0..<n where state[i] != 1 {
            p[i * 4] = 0
            p[i * 4 + 1] = 0
            p[i * 4 + 2] = 0
            unreached += 1
        }
        return unreached
    }
}
