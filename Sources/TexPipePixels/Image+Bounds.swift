extension Image {
    /// The bounding box (inclusive corners) of the texels whose alpha is above `threshold` (a
    /// fraction of max); nil when there is none. `trim` and an atlas's trim both ask it.
    public func bounds(alphaAbove threshold: Double) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        func scan<C: PixelChannel>(_ p: [C]) -> (Int, Int, Int, Int)? {
            let limit = threshold * Double(C.maxValue)
            let w = width
            var (x0, y0, x1, y1) = (Int.max, Int.max, -1, -1)
            p.withUnsafeBufferPointer { b in
                for y in 0..<height {
                    var i = y * w * 4 + 3
                    for x in 0..<w {
                        if Double(b[i]) > limit {
                            x0 = min(x0, x)
                            x1 = max(x1, x)
                            y0 = min(y0, y)
                            y1 = max(y1, y)
                        }
                        i += 4
                    }
                }
            }
            return x1 < 0 ? nil : (x0, y0, x1, y1)
        }
        switch pixels {
        case .rgba8(let p): return scan(p)
        case .rgba16(let p): return scan(p)
        case .rgbaF32: preconditionFailure("trim on an HDR image: the planner admits only HDR stages")
        }
    }
}
