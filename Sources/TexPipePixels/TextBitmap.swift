/// Anti-aliased coverage of one line of text: `fill` and, with an outline, `outline` (the glyphs
/// grown by the outline width), both `width` × `height`, 0…255. `left`/`top` place the bitmap
/// relative to the pen's start on the baseline (y down).
public struct TextBitmap: Sendable {
    public init() {}

    public var width = 0
    public var height = 0
    public var left = 0
    public var top = 0
    public var fill: [UInt8] = []
    public var outline: [UInt8]?
}

extension TextBitmap {
    /// The tight box of nonzero coverage (fill or outline), in bitmap pixels; nil when empty.
    public var inkBox: (x: Int, y: Int, width: Int, height: Int)? {
        var x0 = Int.max
        var y0 = Int.max
        var x1 = -1
        var y1 = -1
        for y in 0..<height {
            for x in 0..<width where fill[y * width + x] != 0 || (outline?[y * width + x] ?? 0) != 0 {
                x0 = min(x0, x)
                x1 = max(x1, x)
                y0 = min(y0, y)
                y1 = max(y1, y)
            }
        }
        return x1 < 0 ? nil : (x0, y0, x1 - x0 + 1, y1 - y0 + 1)
    }
}

/// A font file and the face in it: what the planner finds for a manifest's `font`.
public struct FontFace: Sendable, Hashable {
    public var path: String
    public var faceIndex: Int
    public init(path: String, faceIndex: Int) {
        self.path = path
        self.faceIndex = faceIndex
    }
}
