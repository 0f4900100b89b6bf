public import TexPipeParameters
public import TexPipePixels

/// `color-key`: turns pixels of a key color transparent. docs/stages.md.
///
/// d = √((ΔR² + ΔG² + ΔB²) / 3) / max — the RMS of the channel differences as a fraction
/// (ImageMagick's `-fuzz` in percent / 100). d ≤ tolerance: alpha 0, RGB kept.
/// tolerance < d ≤ tolerance + feather: alpha · f with f = (d − tolerance) / feather, and with
/// `unmix` the foreground recovered as c = (c_obs − (1 − f)·key) / f, clamped.
/// `region: edges` changes only the affected pixels (d ≤ tolerance + feather) connected to the
/// image border through affected pixels, 4-connectivity. Comparisons run on the integer sum of
/// squares against a threshold with 1e-6 slack, so a decimal tolerance hits its exact boundary.
public struct ColorKey: Stage {
    public static let name = "color-key"
    public static let summary = "turns pixels of a key color transparent (all, or only those connected to the border)"
    public static let identity = ##"{"color": "#00ff00"}"##
    public static let parameters: [Parameter] = [
        .color("color", doc: "the key color"),
        .number("tolerance", in: 0...1, default: 0, doc: "max RMS distance of R, G, B from the key, as a fraction"),
        .choice("region", Region.self, default: .all, doc: "all matches, or only those connected to the border"),
        .number("feather", in: 0...1, default: 0, doc: "distance band above tolerance with alpha ramping up"),
        .boolean("unmix", default: false, doc: "recover the foreground color of partly keyed pixels"),
    ]

    public enum Region: String, Sendable, CaseIterable { case all, edges }

    public var color: Color
    public var tolerance: Double
    public var region: Region
    public var feather: Double
    public var unmix: Bool

    public init(_ a: Arguments) {
        color = a.color("color")
        tolerance = a.number("tolerance")
        region = a.choice("region", as: Region.self)
        feather = a.number("feather")
        unmix = a.boolean("unmix")
    }

    /// The table's defaults for what is not given.
    public init(
        color: Color, tolerance: Double? = nil, region: Region? = nil, feather: Double? = nil, unmix: Bool? = nil
    ) {
        self.init(
            .defaults(
                of: Self.parameters,
                [
                    "color": .color(color), "tolerance": tolerance.map { .number($0) },
                    "region": region.map { .text($0.rawValue) }, "feather": feather.map { .number($0) },
                    "unmix": unmix.map { .boolean($0) },
                ]))
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        try input.requireAlpha(.straight, for: Self.name)
        return [input]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        // `all` is per pixel, so it may run in row bands; `edges` floods from the border.
        if region == .all {
            out.runInBands(Kernel(stage: self), on: context.rows)
        } else {
            out.run(Kernel(stage: self))
        }
        return [out]
    }

    struct Kernel: InPlaceKernel {
        var stage: ColorKey

        func run<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>, width: Int, height: Int) {
            let max = C.maxValue
            let m = Double(max)
            let keyRGB = stage.color.channels(max: max)
            let (kr, kg, kb) = (keyRGB[0], keyRGB[1], keyRGB[2])
            let slack = 1e-6
            let full = 3 * (stage.tolerance * m) * (stage.tolerance * m) + slack
            let outer =
                stage.feather > 0
                ? 3 * ((stage.tolerance + stage.feather) * m) * ((stage.tolerance + stage.feather) * m) + slack
                : full
            let n = width * height

            @inline(__always) func sumOfSquares(_ i: Int) -> Int {
                let dr = Int(p[i]) - kr, dg = Int(p[i + 1]) - kg, db = Int(p[i + 2]) - kb
                return dr * dr + dg * dg + db * db
            }

            @inline(__always) func keyOut(_ pixel: Int) {
                let i = pixel * 4
                let s = Double(sumOfSquares(i))
                if s <= full {
                    p[i + 3] = 0
                    return
                }
                guard s <= outer else { return }
                let d = (s / 3).squareRoot() / m
                let f = Swift.min(1, Swift.max(0, (d - stage.tolerance) / stage.feather))
                p[i + 3] = C(truncatingIfNeeded: Int((Double(p[i + 3]) * f + 0.5).rounded(.down)))
                if stage.unmix && f > 0 {
                    for k in 0..<3 {
                        let c = (Double(p[i + k]) - (1 - f) * Double(keyRGB[k])) / f
                        p[i + k] = C(truncatingIfNeeded: Int((Swift.min(m, Swift.max(0, c)) + 0.5).rounded(.down)))
                    }
                }
            }

            switch stage.region {
            case .all:
                for pixel in 0..<n where Double(sumOfSquares(pixel * 4)) <= outer { keyOut(pixel) }
            case .edges:
                // Flood fill from the border through affected pixels (4-connectivity), O(pixels).
                var fill = Fill(p: UnsafeBufferPointer(p), key: (kr, kg, kb), outer: outer, count: n)
                defer { fill.deallocate() }
                for x in 0..<width {
                    fill.push(x, x)
                    fill.push((height - 1) * width + x, x)
                }
                for y in 0..<height {
                    fill.push(y * width, 0)
                    fill.push(y * width + width - 1, width - 1)
                }
                let last = n - width
                while fill.top > 0 {
                    fill.top -= 1
                    let pixel = Int(fill.stack[fill.top])
                    let x = Int(fill.column[fill.top])
                    if x > 0 { fill.push(pixel - 1, x - 1) }
                    if x + 1 < width { fill.push(pixel + 1, x + 1) }
                    if pixel >= width { fill.push(pixel - width, x) }
                    if pixel < last { fill.push(pixel + width, x) }
                }
                for pixel in 0..<n where fill.seen[pixel] { keyOut(pixel) }
            }
        }
    }

    /// The flood fill's state in buffers of its own: each pixel is pushed at most once, so the
    /// stack never holds more than the image (no growth, no bounds checks, no captured arrays).
    /// A pixel is pushed with its column, so popping it needs no division.
    struct Fill<C: PixelChannel> {
        let p: UnsafeBufferPointer<C>
        let key: (Int, Int, Int)
        let outer: Double
        let seen: UnsafeMutablePointer<Bool>
        let stack: UnsafeMutablePointer<Int32>
        let column: UnsafeMutablePointer<Int32>
        var top = 0

        init(p: UnsafeBufferPointer<C>, key: (Int, Int, Int), outer: Double, count: Int) {
            (self.p, self.key, self.outer) = (p, key, outer)
            seen = .allocate(capacity: count)
            seen.initialize(repeating: false, count: count)
            stack = .allocate(capacity: count)
            column = .allocate(capacity: count)
        }

        func deallocate() {
            seen.deallocate()
            stack.deallocate()
            column.deallocate()
        }

        @inline(__always) mutating func push(_ pixel: Int, _ x: Int) {
            guard !seen[pixel] else { return }
            let i = pixel * 4
            let dr = Int(p[i]) - key.0, dg = Int(p[i + 1]) - key.1, db = Int(p[i + 2]) - key.2
            guard Double(dr * dr + dg * dg + db * db) <= outer else { return }
            seen[pixel] = true
            stack[top] = Int32(pixel)
            column[top] = Int32(x)
            top += 1
        }
    }
}
