public import TexPipePixels

/// `resize`: to `width` × `height` (one may be omitted to keep the aspect, rounded, at least 1)
/// or by `scale`. Filters as `mipmaps` (area-weighted `box` by default); premultiplied Float, in
/// linear light unless `colorSpace: linear`; returns the incoming alpha state and depth. docs/stages.md.
public struct Resize: Stage {
    public static let name = "resize"
    public static let summary = "resizes to width/height or by scale (premultiplied, linear light)"
    public static let identity = #"{"width": 3}"#
    public static let parameters: [Parameter] = [
        Parameter(
            "width", .integer(1...65536), .optional(absentDoc: "from height and the aspect"), doc: "output width, px"),
        Parameter(
            "height", .integer(1...65536), .optional(absentDoc: "from width and the aspect"), doc: "output height, px"),
        Parameter(
            "scale", .number(0.0001...64), .optional(absentDoc: "from width/height"), doc: "factor on both sides"),
        ResamplingParameters.filter,
        ResamplingParameters.colorSpace,
        ResamplingParameters.edge,
    ]

    public var width: Int?
    public var height: Int?
    public var scale: Double?
    public var filter: ResampleFilter
    public var colorSpace: ColorSpace
    public var edge: EdgeMode

    public init(_ a: Arguments) throws {
        self.init(fields: a)
        if scale != nil && (width != nil || height != nil) {
            throw StageError(.resizeScaleAndSize)
        }
        if scale == nil && width == nil && height == nil {
            throw StageError(.resizeNeedsSize)
        }
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
        filter = a.choice("filter", as: ResampleFilter.self)
        colorSpace = a.choice("colorSpace", as: ColorSpace.self)
        edge = a.choice("edge", as: EdgeMode.self)
    }

    /// The output size for a w × h input.
    public func size(_ w: Int, _ h: Int) -> (width: Int, height: Int) {
        func round(_ v: Double) -> Int { max(1, Int((v + 0.5).rounded(.down))) }
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
        } else if let width, let height {
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
