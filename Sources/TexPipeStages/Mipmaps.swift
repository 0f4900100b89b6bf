internal import Foundation
public import TexPipeParameters
public import TexPipePixels

/// `mipmaps`: one image in, the chain out (docs/stages.md). Level n is max(1, ⌊w/2ⁿ⌋) × max(1, ⌊h/2ⁿ⌋),
/// from level 0 (the input, unchanged) while the larger side is ≥ `minSize`, at most `levels`.
///
/// Filtering is on premultiplied Float values, in linear light with `colorSpace: srgb` (default)
/// or on stored values with `linear`, and returns to the incoming alpha state and depth — so
/// transparent texels weigh nothing and a white net on transparent black stays white.
/// `box` builds each level from the one above (exact area weights, odd sizes included); the other
/// filters build each level from level 0.
///
/// `coverage` (an alpha-test reference, e.g. 0.5): each level's alpha is scaled by s ∈ [0, 4]
/// (binary search) so the fraction of samples with alpha ≥ reference matches level 0's, measured
/// as a bilinear sampler sees the level (4×4 samples per texel). As NVTT / DirectXTex
/// `-keepcoverage`. Each level's achieved and target coverage go into the job's notes.
public struct Mipmaps: Stage {
    public static let name = "mipmaps"
    public static let summary = "makes the mip chain (premultiplied, linear light, optionally coverage-preserving)"
    public static let takesHDR = true
    /// A cube map's faces are filtered each on its own (no filtering across the seams) and every
    /// level is a cube of them.
    public static let takesCube = true
    public static let makesLevels = true
    /// A volume's chain is a 2×2×2 box with `levels`, `minSize` and `colorSpace`: the 2D-only
    /// parameters may not be given (`filter` and `layout` only as their volume values).
    public static let volumeParameters: [String: JSON?]? = [
        "stage": nil, "levels": nil, "minSize": nil, "colorSpace": nil, "filter": .string("box"),
        "layout": .string("texture"),
    ]
    public var makesNormalMap: Bool { normals }
    /// A box chain, unless a 2D-only parameter asks for more than a volume's box can do.
    public var volumeChain: VolumeChain? {
        guard !normals, coverage == nil, layout != .strip, !bleed, roughnessFrom == nil else { return nil }
        return VolumeChain(levels: levels, minSize: minSize, colorSpace: colorSpace)
    }
    public static let identity = #"{"levels": 1}"#
    public static let parameters: [Parameter] = [
        .integer("minSize", in: 1...65536, default: 1, doc: "stop before a level whose larger side is below this"),
        Parameter(
            "levels", .integer(1...32), .optional(absentDoc: "down to minSize"),
            doc: "at most this many levels, level 0 included"),
        ResamplingParameters.filter,
        ResamplingParameters.colorSpace,
        Parameter(
            "coverage", .number(0...1), .optional(absentDoc: "off"),
            doc: "alpha-test reference whose coverage every level keeps"),
        .choice(
            "layout", Layout.self, default: .files,
            doc:
                "one file per level (_mip{level}), one strip (_mips), or one GPU texture file with every level (the default for .ktx2/.dds outputs)"
        ),
        .boolean(
            "normals", default: false,
            doc: "RGB is a unit normal: filtered in linear, renormalized per texel below level 0"),
        .boolean("bleed", default: false, doc: "bleed every straight-alpha level after filtering"),
        ResamplingParameters.edge,
        RoughnessFrom.parameter,
    ]

    public enum Layout: String, Sendable, CaseIterable { case files, strip, texture }

    public var minSize: Int
    public var levels: Int?
    public var filter: ResampleFilter
    public var colorSpace: ColorSpace
    public var coverage: Double?
    public var layout: Layout
    public var normals: Bool
    public var bleed: Bool
    public var edge: EdgeMode
    /// Roughness raised in every level below 0 by a normal map's variance (`Mipmaps+Roughness.swift`).
    public var roughnessFrom: RoughnessFrom?

    /// Every parameter at the table's default.
    public init() { self.init(.defaults(of: Self.parameters)) }

    public init(_ a: Arguments) {
        minSize = a.integer("minSize")
        levels = a.optionalInteger("levels")
        filter = a.choice("filter", as: ResampleFilter.self)
        colorSpace = a.choice("colorSpace", as: ColorSpace.self)
        coverage = a.optionalNumber("coverage")
        layout = a.choice("layout", as: Layout.self)
        normals = a.boolean("normals")
        // A normal is a vector, not a colour: never filtered in sRGB light.
        if normals { colorSpace = .linear }
        bleed = a.boolean("bleed")
        edge = a.choice("edge", as: EdgeMode.self)
        roughnessFrom = a.object("roughnessFrom").map(RoughnessFrom.init)
    }

    public var reads: [Resource] {
        roughnessFrom.map { [.image(path: $0.normals, label: "roughnessFrom.normals", sameSize: false)] } ?? []
    }

    /// The sizes of the chain for a w × h level 0.
    public func sizes(_ w: Int, _ h: Int) -> [(width: Int, height: Int)] {
        var out: [(Int, Int)] = [(w, h)]
        var n = 1
        while max(out[n - 1].0, out[n - 1].1) > 1, levels.map({ n < $0 }) ?? true {
            let size = (max(1, w >> n), max(1, h >> n))
            if max(size.0, size.1) < minSize { break }
            out.append(size)
            n += 1
        }
        return out
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        if input.dataDependentSize {
            throw StageError(.needsKnownSize)
        }
        if bleed { try input.requireAlpha(.straight, for: "mipmaps with \"bleed\": true") }
        if roughnessFrom != nil {
            try input.requireAlpha(.straight, for: "mipmaps with \"roughnessFrom\"")
            if input.isHDR || input.cube {
                throw StageError(.roughnessFromNeeds)
            }
        }
        if input.cube {
            guard layout != .strip else { throw StageError(.notOnCube(stage: "mipmaps with layout \"strip\"")) }
            var face = input
            face.cube = false
            face.height = input.width
            return try planned(face).map { s in
                var level = s
                level.height = s.width.map { 6 * $0 }
                level.cube = true
                return level
            }
        }
        guard let w = input.width, let h = input.height else { return [input] }
        let chain = sizes(w, h)
        if layout == .strip {
            var out = input
            out.width = chain.reduce(0) { $0 + $1.width }
            out.suffix += "_mips"
            return [out]
        }
        return chain.enumerated().map { n, size in
            var s = input
            s.width = size.width
            s.height = size.height
            return s.asLevel(n, inTexture: layout == .texture)
        }
    }

    /// Up to `context.wholeFloatPixels` (the engine's memory policy), the filters that read level 0
    /// for every level (all but `box`) convert it to Float once (16 B a pixel) instead of once per
    /// level; above it, memory wins.
    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        if image.cube {
            let chains = try image.cubeFaces().map { try applied(to: $0, context: &context) }
            return chains[0].indices.map { n in
                var level = chains[0][n].stackingFaces(chains.map { $0[n] })
                level.textureLevel = chains[0][n].textureLevel
                return level
            }
        }
        let wholeLevel0Pixels = context.wholeFloatPixels
        let chain = sizes(image.width, image.height)
        var levels: [Image] = [image]
        if let reference = coverage {
            levels += coverageLevels(image, chain, reference: reference, context: &context)
        } else {
            // Streamed: level 0 is read a row at a time as premultiplied Float, each level pulls
            // its rows from the one above (box) or from level 0 (the others), and only the
            // quantised levels are ever whole. The box chain never holds a Float image; the
            // others reread level 0 for every level, so a level 0 up to `wholeLevel0Pixels` is
            // converted once and kept (converting it per level cost them 2–3×).
            if filter != .box && image.pixelCount <= wholeLevel0Pixels {
                let base = FloatImage(image, colorSpace: colorSpace)
                levels += base.pixels.withUnsafeBufferPointer {
                    streamedLevels(
                        image, chain, from: FloatRows(base: $0.baseAddress!, width: base.width, height: base.height))
                }
            } else {
                levels += streamedLevels(image, chain, from: ConvertedRows(image: image, colorSpace: colorSpace))
            }
        }
        if normals {
            for n in levels.indices.dropFirst() { levels[n] = Self.renormalized(levels[n]) }
        }
        if let r = roughnessFrom {
            let map = try context.image(r.normals, label: "roughnessFrom.normals")
            for n in levels.indices.dropFirst() { r.adjust(&levels[n], normalMap: map) }
        }
        if bleed { levels = levels.map { Bleed().bled($0).image } }
        for n in levels.indices {
            levels[n] = image.with(width: levels[n].width, height: levels[n].height, pixels: levels[n].pixels)
                .asLevel(n, inTexture: layout == .texture)
        }
        guard layout == .strip else { return levels }
        return [strip(levels, like: image)]
    }

    /// Every texel's RGB read as a unit normal (x, y, z = 2c/max − 1), scaled back to length 1
    /// and re-encoded (c = round((n + 1) / 2 · max)); alpha untouched. A zero vector (which
    /// filtering opposite normals can give) becomes +z.
    static func renormalized(_ image: Image) -> Image {
        var out = image
        func fix<T: FixedWidthInteger & UnsignedInteger>(_ p: inout [T]) {
            let maxValue = Float(T.max)
            for i in stride(from: 0, to: p.count, by: 4) {
                var x = 2 * Float(p[i]) / maxValue - 1
                var y = 2 * Float(p[i + 1]) / maxValue - 1
                var z = 2 * Float(p[i + 2]) / maxValue - 1
                let length = (x * x + y * y + z * z).squareRoot()
                if length > 1e-6 {
                    (x, y, z) = (x / length, y / length, z / length)
                } else {
                    (x, y, z) = (0, 0, 1)
                }
                p[i] = T(((x + 1) / 2 * maxValue).rounded())
                p[i + 1] = T(((y + 1) / 2 * maxValue).rounded())
                p[i + 2] = T(((z + 1) / 2 * maxValue).rounded())
            }
        }
        switch image.pixels {
        case .rgba8(var p):
            fix(&p)
            out.pixels = .rgba8(p)
        case .rgba16(var p):
            fix(&p)
            out.pixels = .rgba16(p)
        case .rgbaF32(var p):
            // An HDR normal map stores the components as 0…1 too: the same renormalisation.
            for i in stride(from: 0, to: p.count, by: 4) {
                var v = SIMD3(2 * p[i] - 1, 2 * p[i + 1] - 1, 2 * p[i + 2] - 1)
                let length = (v * v).sum().squareRoot()
                v = length > 1e-6 ? v / length : SIMD3(0, 0, 1)
                p[i] = (v.x + 1) / 2
                p[i + 1] = (v.y + 1) / 2
                p[i + 2] = (v.z + 1) / 2
            }
            out.pixels = .rgbaF32(p)
        }
        return out
    }

    /// Levels 1… streamed from `rows` (level 0 as premultiplied Float rows): each level pulls its
    /// rows from the one above (box) or from level 0 (the others).
    func streamedLevels(_ image: Image, _ chain: [(width: Int, height: Int)], from rows: any FloatRowSource)
        -> [Image]
    {
        var streamed: [StreamedLevel] = []
        for (w, h) in chain.dropFirst() {
            var above: any FloatRowSource = rows
            if filter == .box, let last = streamed.last { above = last }
            streamed.append(
                StreamedLevel(
                    from: above, width: w, height: h, depth: image.depth, alpha: image.alpha,
                    colorSpace: colorSpace, filter: filter, edge: edge))
        }
        // The last level first: pulling its rows makes every row of a box chain, in order.
        return streamed.reversed().map { $0.finished() }.reversed()
    }

    /// Levels 1… when `coverage` is set: it measures level 0 and rescales each level's alpha as a
    /// whole, so each level is made whole in Float — one at a time, resampled from level 0's rows
    /// converted as they are read (or, for `box`, from the unscaled level above, the only other
    /// Float level kept) — and quantised before the next is made. Level 0 is measured from its
    /// rows; the candidate scales are judged from their alpha alone, never made as images.
    func coverageLevels(
        _ image: Image, _ chain: [(width: Int, height: Int)], reference: Double, context: inout StageContext
    ) -> [Image] {
        let source = ConvertedRows(image: image, colorSpace: colorSpace)
        let coverage = Coverage(reference: Float(reference), edge: edge)
        let target = coverage.measure(source)
        var report = ["coverage ≥ \(ValueText.number(reference)): level 0 \(Coverage.percent(target))"]
        var levels: [Image] = []
        var previous: FloatImage?
        for (n, (w, h)) in chain.enumerated().dropFirst() {
            let level =
                previous?.resampled(width: w, height: h, filter: filter, edge: edge)
                ?? source.streamResampled(width: w, height: h, filter: filter, edge: edge)
            previous = filter == .box ? level : nil
            let (scaled, achieved) = coverage.preserved(
                consume level, target: target, levels: image.depth == 8 ? 255 : 65535)
            report.append("level \(n) \(Coverage.percent(achieved))")
            levels.append(scaled.image(depth: image.depth, alpha: image.alpha, colorSpace: colorSpace))
        }
        context.notes.append(report.joined(separator: ", "))
        return levels
    }

    /// All levels left to right, top-aligned, on a transparent canvas.
    func strip(_ levels: [Image], like image: Image) -> Image {
        var canvas = Image(
            width: levels.reduce(0) { $0 + $1.width }, height: image.height, depth: image.depth, alpha: image.alpha)
        canvas = image.with(width: canvas.width, height: canvas.height, pixels: canvas.pixels)
        var x = 0
        for level in levels {
            canvas = canvas.pasting(level, atX: x, y: 0)
            x += level.width
        }
        canvas.suffix = image.suffix + "_mips"
        return canvas
    }
}

extension Image {
    /// This image with `other` (same depth) copied over it at (x, y). Without `clipped`, `other`
    /// must fit; with it, the parts outside are dropped.
    public func pasting(_ other: Image, atX x: Int, y: Int, clipped: Bool = false) -> Image {
        let x0 = max(0, x)
        let y0 = max(0, y)
        let x1 = min(width, x + other.width)
        let y1 = min(height, y + other.height)
        precondition(clipped || (x0 == x && y0 == y && x1 == x + other.width && y1 == y + other.height))
        guard x1 > x0 && y1 > y0 else { return self }
        var out = self
        let copy = RectCopy(x: x0 - x, y: y0 - y, width: x1 - x0, height: y1 - y0, to: x0, y0)
        switch (out.pixels, other.pixels) {
        case (.rgba8(var d), .rgba8(let s)):
            s.withUnsafeBufferPointer { s in
                d.withUnsafeMutableBufferPointer {
                    copy.run(s, srcWidth: other.width, srcHeight: other.height, $0, width: width, height: height)
                }
            }
            out.pixels = .rgba8(d)
        case (.rgba16(var d), .rgba16(let s)):
            s.withUnsafeBufferPointer { s in
                d.withUnsafeMutableBufferPointer {
                    copy.run(s, srcWidth: other.width, srcHeight: other.height, $0, width: width, height: height)
                }
            }
            out.pixels = .rgba16(d)
        case (.rgbaF32(var d), .rgbaF32(let s)):
            s.withUnsafeBufferPointer { s in
                s.withMemoryRebound(to: UInt32.self) { s in
                    d.withUnsafeMutableBufferPointer {
                        $0.withMemoryRebound(to: UInt32.self) {
                            copy.run(
                                s, srcWidth: other.width, srcHeight: other.height, $0, width: width, height: height)
                        }
                    }
                }
            }
            out.pixels = .rgbaF32(d)
        default:
            preconditionFailure("pasting needs equal depths")
        }
        return out
    }
}

/// Alpha-test coverage as a bilinear sampler sees a level: 4×4 samples per texel.
struct Coverage {
    var reference: Float
    var edge: EdgeMode
    static let bins = 65536

    static func percent(_ c: Double) -> String { String(format: "%.1f%%", c * 100) }

    /// Histogram of the bilinearly sampled alpha (bin = ⌊a · 65535⌋), computed once per level.
    /// The 4×4 samples of a texel sit at ±1/8 and ±3/8 texel from its centre, so each is a fixed
    /// blend of the texel and its neighbours: a horizontal pass makes 4 values per texel, a
    /// vertical pass blends three such rows. O(16 · texels), no per-sample clamping.
    /// `alphaRow(y, into)` writes row y's w alpha values (y already wrapped or clamped).
    func histogram(width w: Int, height h: Int, alphaRow: (Int, UnsafeMutablePointer<Float>) -> Void) -> [Int] {
        var hist = [Int](repeating: 0, count: Coverage.bins)
        let scale = Float(Coverage.bins - 1)
        func wrapped(_ i: Int, _ n: Int) -> Int { edge == .wrap ? ((i % n) + n) % n : min(max(i, 0), n - 1) }
        let alpha = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { alpha.deallocate() }
        // Horizontal samples of row y: 4 per texel.
        func row(_ y: Int) -> [Float] {
            alphaRow(wrapped(y, h), alpha)
            var out = [Float](repeating: 0, count: w * 4)
            for x in 0..<w {
                let l = alpha[wrapped(x - 1, w)]
                let c = alpha[x]
                let r = alpha[wrapped(x + 1, w)]
                out[4 * x] = 0.375 * l + 0.625 * c
                out[4 * x + 1] = 0.125 * l + 0.875 * c
                out[4 * x + 2] = 0.875 * c + 0.125 * r
                out[4 * x + 3] = 0.625 * c + 0.375 * r
            }
            return out
        }
        var above = row(-1)
        var here = row(0)
        hist.withUnsafeMutableBufferPointer { hist in
            for y in 0..<h {
                let below = row(y + 1)
                for i in 0..<(w * 4) {
                    let (u, c, d) = (above[i], here[i], below[i])
                    hist[Int(min(max(0.375 * u + 0.625 * c, 0), 1) * scale)] += 1
                    hist[Int(min(max(0.125 * u + 0.875 * c, 0), 1) * scale)] += 1
                    hist[Int(min(max(0.875 * c + 0.125 * d, 0), 1) * scale)] += 1
                    hist[Int(min(max(0.625 * c + 0.375 * d, 0), 1) * scale)] += 1
                }
                above = here
                here = below
            }
        }
        return hist
    }

    /// The histogram of a Float level's alpha, or of its alpha as `scaled(_:by:levels:)` would
    /// store it (without making that image).
    func histogram(_ img: FloatImage, scale: Float? = nil, levels: Float = 0) -> [Int] {
        img.pixels.withUnsafeBufferPointer { p in
            histogram(width: img.width, height: img.height) { y, out in
                for x in 0..<img.width {
                    let a = p[y * img.width + x].w
                    if let scale, a > 0 {
                        out[x] = Coverage.scaledAlpha(a, scale, levels)
                    } else {
                        out[x] = a
                    }
                }
            }
        }
    }

    /// Alpha × scale, clamped and quantised to `levels`.
    @inline(__always) static func scaledAlpha(_ a: Float, _ scale: Float, _ levels: Float) -> Float {
        (min(1, a * scale) * levels).rounded() / levels
    }

    /// Fraction of samples with alpha · scale ≥ reference.
    func fraction(_ hist: [Int], suffix: [Int], scale: Float) -> Double {
        guard scale > 0 else { return reference <= 0 ? 1 : 0 }
        let threshold = reference / scale
        if threshold > 1 { return 0 }
        let bin = max(0, Int((threshold * Float(Coverage.bins - 1)).rounded(.up)))
        return Double(suffix[bin]) / Double(suffix[0])
    }

    static func suffixSums(_ hist: [Int]) -> [Int] {
        var s = [Int](repeating: 0, count: hist.count + 1)
        for i in stride(from: hist.count - 1, through: 0, by: -1) { s[i] = s[i + 1] + hist[i] }
        return s
    }

    func measure(_ img: FloatImage) -> Double { measured(histogram(img)) }

    /// Level 0's coverage from its rows, converted one at a time.
    func measure(_ rows: some FloatRowSource) -> Double {
        let scratch = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: rows.width)
        defer { scratch.deallocate() }
        return measured(
            histogram(width: rows.width, height: rows.height) { y, out in
                let row = rows.row(y, scratch: scratch)
                for x in 0..<rows.width { out[x] = row[x].w }
            })
    }

    func measured(_ hist: [Int]) -> Double { fraction(hist, suffix: Coverage.suffixSums(hist), scale: 1) }

    /// The level with alpha scaled so its coverage is closest to `target`; and that coverage.
    /// The search runs on the continuous alpha; the final candidates are judged as they will
    /// be written, with alpha quantised to the output depth (`levels` = 255 or 65535), so a level
    /// whose alpha sits on the reference cannot flip to the other side when stored.
    func preserved(_ img: __owned FloatImage, target: Double, levels: Float) -> (FloatImage, Double) {
        let suffix = Coverage.suffixSums(histogram(img))
        var lo: Float = 0
        var hi: Float = 4
        for _ in 0..<24 {
            let mid = (lo + hi) / 2
            if fraction([], suffix: suffix, scale: mid) < target { lo = mid } else { hi = mid }
        }
        // The histogram bins alpha at 1/65535, so the boundary it finds can sit up to a quantum
        // away from where the stored value flips; one quantum either side covers that.
        // Each candidate judged from its stored alpha alone; only the chosen one is made.
        let candidates = [lo * (1 - 1 / levels), lo, hi, hi * (1 + 1 / levels)].map { scale -> (Float, Double) in
            (scale, measured(histogram(img, scale: scale, levels: levels)))
        }
        let best = candidates.min { abs($0.1 - target) < abs($1.1 - target) }!
        return (scaled(consume img, by: best.0, levels: levels), best.1)
    }

    /// Alpha × scale, clamped and quantised to `levels`; colors follow so the unpremultiplied
    /// color is unchanged.
    func scaled(_ img: __owned FloatImage, by scale: Float, levels: Float) -> FloatImage {
        var out = consume img
        for i in out.pixels.indices {
            let px = out.pixels[i]
            guard px.w > 0 else { continue }
            let a = Coverage.scaledAlpha(px.w, scale, levels)
            out.pixels[i] = SIMD4(SIMD3(px.x, px.y, px.z) * (a / px.w), a)
        }
        return out
    }
}
