public import TexPipeParameters
public import TexPipePixels

/// `resize`: to `width` × `height` (one may be omitted to keep the aspect, rounded, at least 1),
/// by `scale`, or by `fit` — the policies of engines' texture importers (`Fit`). Filters as `mipmaps` (area-weighted `box` by default); premultiplied Float, in
/// linear light unless `colorSpace: linear`; returns the incoming alpha state and depth. docs/stages.md.
public struct Resize: Stage {
    public static let name = "resize"
    public static let summary = "resizes to width/height or by scale (premultiplied, linear light)"
    public static let takesHDR = true
    public static let identity = #"{"width": 3}"#
    public static let parameters: [Parameter] = [
        Parameter(
            "width", .integer(1...65536), .optional(absentDoc: "from height and the aspect"), doc: "output width, px"),
        Parameter(
            "height", .integer(1...65536), .optional(absentDoc: "from width and the aspect"), doc: "output height, px"),
        Parameter(
            "scale", .number(0.0001...64), .optional(absentDoc: "from width/height"), doc: "factor on both sides"),
        Parameter(
            "fit", .object(Fit.table), .optional(absentDoc: "width/height or scale"),
            doc: "importer policies, in order: maxSize, pot, multipleOf, downscaleOnly"),
        ResamplingParameters.filter,
        ResamplingParameters.colorSpace,
        ResamplingParameters.edge,
    ]

    public var width: Int?
    public var height: Int?
    public var scale: Double?
    public var fit: Fit?
    public var filter: ResampleFilter
    public var colorSpace: ColorSpace
    public var edge: EdgeMode

    public init(_ a: Arguments) throws {
        self.init(fields: a)
        let ways = [scale != nil, width != nil || height != nil, fit != nil].filter { $0 }.count
        if ways > 1 { throw StageError(.resizeScaleAndSize) }
        if ways == 0 { throw StageError(.resizeNeedsSize) }
    }

    /// The table's defaults for what is not given.
    public init(width: Int? = nil, height: Int? = nil, scale: Double? = nil, filter: ResampleFilter? = nil) {
        self.init(
            fields: .defaults(
                of: Self.parameters,
                [
                    "width": width.map { .integer($0) }, "height": height.map { .integer($0) },
                    "scale": scale.map { .number($0) }, "filter": filter.map { .text($0.rawValue) },
                ]))
    }

    private init(fields a: Arguments) {
        width = a.optionalInteger("width")
        height = a.optionalInteger("height")
        scale = a.optionalNumber("scale")
        fit = a.object("fit").map(Fit.init)
        filter = a.choice("filter", as: ResampleFilter.self)
        colorSpace = a.choice("colorSpace", as: ColorSpace.self)
        edge = a.choice("edge", as: EdgeMode.self)
    }

    /// The output size for a w × h input.
    public func size(_ w: Int, _ h: Int) -> (width: Int, height: Int) {
        func round(_ v: Double) -> Int { max(1, Int((v + 0.5).rounded(.down))) }
        if let fit { return fit.size(w, h) }
        if let scale { return (round(Double(w) * scale), round(Double(h) * scale)) }
        switch (width, height) {
        case (let tw?, let th?): return (tw, th)
        case (let tw?, nil): return (tw, round(Double(h) * Double(tw) / Double(w)))
        case (nil, let th?): return (round(Double(w) * Double(th) / Double(h)), th)
        default: return (w, h)
        }
    }

    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        if let w = input.width, let h = input.height {
            (out.width, out.height) = size(w, h)
        } else if fit == nil, let width, let height {
            (out.width, out.height) = (width, height)
            out.dataDependentSize = false
        }
        return [out]
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        let (w, h) = size(image.width, image.height)
        if w == image.width && h == image.height { return [image] }
        let resized = FloatImage(image, colorSpace: colorSpace).resampled(
            width: w, height: h, filter: filter, edge: edge
        )
        .image(depth: image.depth, alpha: image.alpha, colorSpace: colorSpace)
        return [image.with(width: w, height: h, pixels: resized.pixels)]
    }
}

extension Resize {
    /// What engines' texture importers do to a texture's size, applied in this order (docs/stages.md):
    /// `maxSize` (the larger side at most that, the aspect kept, rounded half up), `pot` (each side
    /// to a power of two: the nearest — ties go up —, the next one up, or the next one down),
    /// `multipleOf` (each side rounded down to a multiple; a side already smaller stays, so a 1×1
    /// stays 1×1) and `downscaleOnly` (default true: no side ends larger than it was — where `pot`
    /// would enlarge a side, it takes the power of two below instead, so the side stays a power of
    /// two).
    public struct Fit: Sendable, Equatable {
        public enum PowerOfTwo: String, Sendable, CaseIterable { case nearest, up, down }

        public var maxSize: Int?
        public var pot: PowerOfTwo?
        public var multipleOf: Int?
        public var downscaleOnly: Bool

        static let table: [Parameter] = [
            Parameter(
                "maxSize", .integer(1...65536), .optional(absentDoc: "no limit"),
                doc: "the larger side at most this, px (aspect kept)"),
            Parameter(
                "pot", .choice(PowerOfTwo.allCases.map(\.rawValue)), .optional(absentDoc: "any size"),
                doc: "each side to a power of two: nearest, up or down"),
            Parameter(
                "multipleOf", .integer(1...4096), .optional(absentDoc: "any size"),
                doc: "each side rounded down to a multiple (4 for block formats)"),
            .boolean("downscaleOnly", default: true, doc: "never enlarge a side (wins over pot)"),
        ]

        public init(maxSize: Int? = nil, pot: PowerOfTwo? = nil, multipleOf: Int? = nil, downscaleOnly: Bool = true) {
            (self.maxSize, self.pot, self.multipleOf, self.downscaleOnly) = (maxSize, pot, multipleOf, downscaleOnly)
        }

        init(_ a: Arguments) {
            self.init(
                maxSize: a.optionalInteger("maxSize"), pot: a.optionalText("pot").flatMap(PowerOfTwo.init(rawValue:)),
                multipleOf: a.optionalInteger("multipleOf"), downscaleOnly: a.boolean("downscaleOnly"))
        }

        /// The fitted size of a w × h image.
        public func size(_ w: Int, _ h: Int) -> (width: Int, height: Int) {
            var sides = [w, h]
            if let maxSize, max(w, h) > maxSize {
                let s = Double(maxSize) / Double(max(w, h))
                sides = [w, h].map { max(1, Int((Double($0) * s + 0.5).rounded(.down))) }
            }
            let original = [w, h]
            if let pot {
                sides = zip(sides, original).map { side, was in
                    let below = 1 << (Int.bitWidth - 1 - side.leadingZeroBitCount)  // the largest ≤ side
                    let above = below == side ? side : below << 1
                    var chosen: Int
                    switch pot {
                    case .down: chosen = below
                    case .up: chosen = above
                    case .nearest: chosen = side - below < above - side ? below : above
                    }
                    if downscaleOnly && chosen > was { chosen = below }
                    return chosen
                }
            }
            if let multipleOf { sides = sides.map { $0 >= multipleOf ? $0 / multipleOf * multipleOf : $0 } }
            if downscaleOnly { sides = zip(sides, original).map { min($0, $1) } }
            return (sides[0], sides[1])
        }
    }
}
