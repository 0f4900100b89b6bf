public import TexPipeParameters
public import TexPipePixels

/// `composite`: draws `layers` over the incoming image (the backdrop), bottom to top. docs/stages.md.
///
/// A layer is a solid `color`, an `image` (a path relative to the manifest, placeholders allowed;
/// `"@input"` is the stage's incoming image as it arrived), a `gradient` or a `text`. Its alpha is
/// scaled by `opacity` and by its `mask`'s coverage — Rec. 709 luma of the mask's stored values
/// times the mask's alpha — then it is blended and composited by the W3C Level 1 formulas
/// (Composite+Blend.swift) on straight Float colors, and rounded half up to the input's depth.
///
/// Geometry: the canvas is the incoming image. An image layer is placed at `offset`; one of another
/// size needs `fit` — `stretch` (resized to the canvas, premultiplied, linear light), `center`
/// (natural size, centered, then offset) or `tile` (repeated from `offset`). A mask lies on the
/// canvas (it does not move with `offset`) and follows the layer's `fit` when its size differs.
/// A gradient runs from `from` to `to` along `angle` (degrees clockwise; 0 = top to bottom) over
/// the canvas as CSS `linear-gradient` does (the corners get the end colors), interpolated on
/// premultiplied sRGB values. Text is anchored by its ink bounding box: `anchor` names which point
/// of that box lies at `at` (default the canvas center).
public struct Composite: Stage {
    public static let name = "composite"
    public static let summary = "draws color, image, gradient and text layers over the image (W3C blend modes)"
    public static let identity = #"{"layers": [{"color": "transparent"}]}"#

    public enum Fit: String, Sendable, CaseIterable { case stretch, center, tile }

    public enum Anchor: String, Sendable, CaseIterable {
        case topLeft = "top-left"
        case top
        case topRight = "top-right"
        case left, center, right
        case bottomLeft = "bottom-left"
        case bottom
        case bottomRight = "bottom-right"

        /// Which fraction of the box's width and height lies left of / above the anchor point.
        var fraction: (x: Double, y: Double) {
            switch self {
            case .topLeft: (0, 0)
            case .top: (0.5, 0)
            case .topRight: (1, 0)
            case .left: (0, 0.5)
            case .center: (0.5, 0.5)
            case .right: (1, 0.5)
            case .bottomLeft: (0, 1)
            case .bottom: (0.5, 1)
            case .bottomRight: (1, 1)
            }
        }
    }

    static let layerTable: [Parameter] = [
        Parameter(
            "color", .color, .optional(absentDoc: "a text layer draws white"),
            doc: "a solid layer's color; a text layer's fill color"),
        Parameter(
            "image", .text, .optional(absentDoc: "not an image layer"),
            doc: "an image layer: a path relative to the manifest (placeholders allowed) or \"@input\""),
        Parameter(
            "gradient",
            .object([
                .color("from", doc: "color at the start"),
                .color("to", doc: "color at the end"),
                .number("angle", in: -360...360, default: 0, doc: "degrees clockwise; 0 runs top to bottom"),
            ]), .optional(absentDoc: "not a gradient layer"), doc: "a linear gradient layer over the canvas"),
        Parameter(
            "text", .text, .optional(absentDoc: "not a text layer"), doc: "a text layer's text (placeholders allowed)"),
        Parameter(
            "font", .text, .defaulted(.text("DejaVu Sans")),
            doc: "text: a font file (relative to the manifest) or a fontconfig name such as \"DejaVu Sans:bold\""),
        .number("size", in: 1...4096, default: 32, doc: "text: pixels per em"),
        Parameter(
            "at", .integers(count: 2, -65536...65536), .optional(absentDoc: "the canvas center"),
            doc: "text: [x, y] of the anchor point, px"),
        .choice(
            "anchor", Anchor.self, default: .center,
            doc: "text: which point of the ink box is at `at`"),
        Parameter(
            "outline",
            .object([
                .number("width", in: 0.1...256, doc: "px outside the glyphs"),
                .color("color", default: .black, doc: "outline color"),
            ]), .optional(absentDoc: "no outline"), doc: "text: an outline drawn under the glyphs"),
        Parameter(
            "mask", .text, .optional(absentDoc: "no mask"),
            doc: "an image whose luma × alpha scales the layer's alpha (path relative to the manifest)"),
        .number("opacity", in: 0...1, default: 1, doc: "scales the layer's alpha"),
        .choice("blend", BlendMode.self, default: .normal, doc: "W3C blend mode"),
        .choice(
            "operator", Operator.self, default: .sourceOver,
            doc: "Porter-Duff operator; source-atop keeps the backdrop's alpha"),
        Parameter(
            "offset", .integers(count: 2, -65536...65536), .defaulted(.integers([0, 0])),
            doc: "[x, y] px the layer's content moves"),
        Parameter(
            "fit", .choice(Fit.allCases.map(\.rawValue)), .optional(absentDoc: "the image must be the canvas's size"),
            doc: "an image or mask of another size: stretch, center or tile"),
    ]

    public static let parameters: [Parameter] = [
        Parameter("layers", .objects(layerTable), .required, doc: "drawn over the image, bottom to top")
    ]

    public struct TextContent: Sendable {
        public var text: String
        /// The manifest's `font`: a fontconfig pattern or a file relative to `fontBase`; the planner
        /// finds it, the engine hands it to the stage.
        public var font: String
        public var fontBase: String
        public var size: Double
        public var at: (x: Int, y: Int)?
        public var anchor: Anchor
        public var color: Color
        public var outline: (width: Double, color: Color)?
    }

    public enum Content: Sendable {
        case color(Color)
        /// nil: `@input`.
        case image(String?)
        case gradient(from: Color, to: Color, angle: Double)
        case text(TextContent)
    }

    public struct Layer: Sendable {
        public var content: Content
        /// Absolute path of the mask.
        public var mask: String?
        public var opacity: Double
        public var blend: BlendMode
        public var op: Operator
        public var offset: (x: Int, y: Int)
        public var fit: Fit?
        /// Where the layer came from, for messages (`layers[2]`).
        public var label: String

        /// A layer's placement and blending from its decoded arguments (`layerTable`).
        init(_ content: Content, _ l: Arguments, label: String) {
            self.content = content
            self.label = label
            mask = l.has("mask") ? l.file("mask") : nil
            opacity = l.number("opacity")
            blend = l.choice("blend", as: BlendMode.self)
            op = l.choice("operator", as: Operator.self)
            let o = l.integers("offset")
            offset = (o[0], o[1])
            fit = l.optionalText("fit").flatMap(Fit.init(rawValue:))
        }

        /// The table's defaults for what is not given.
        public init(_ content: Content, blend: BlendMode? = nil, op: Operator? = nil, label: String = "layer") {
            self.init(
                content,
                .defaults(
                    of: Composite.layerTable,
                    ["blend": blend.map { .text($0.rawValue) }, "operator": op.map { .text($0.rawValue) }]),
                label: label)
        }
    }

    public var layers: [Layer]

    public init(layers: [Layer]) { self.layers = layers }

    public init(_ a: Arguments) throws {
        layers = []
        for (i, l) in a.objects("layers").enumerated() {
            let label = "layers[\(i)]"
            let kinds = ["image", "gradient", "text"].filter { l.has($0) }
            guard kinds.count <= 1 else {
                throw StageError(.layerKinds(label: label, kinds: kinds))
            }
            let content: Content
            switch kinds.first {
            case "image"?:
                let path = l.text("image")
                content = .image(path == "@input" ? nil : l.file("image"))
            case "gradient"?:
                let g = l.object("gradient")!
                content = .gradient(from: g.color("from"), to: g.color("to"), angle: g.number("angle"))
            case "text"?:
                let at = l.has("at") ? l.integers("at") : nil
                let outline = l.object("outline").map { ($0.number("width"), $0.color("color")) }
                content = .text(
                    TextContent(
                        text: l.text("text"), font: l.text("font"), fontBase: a.baseDirectory, size: l.number("size"),
                        at: at.map { ($0[0], $0[1]) },
                        anchor: l.choice("anchor", as: Anchor.self), color: l.optionalColor("color") ?? .white,
                        outline: outline))
            default:
                guard let c = l.optionalColor("color") else {
                    throw StageError(.layerWithoutContent(label: label))
                }
                content = .color(c)
            }
            if kinds.first != "text" {
                for key in ["at", "outline"] where l.has(key) {
                    throw StageError(.textOnly(label: label, key: key))
                }
            }
            if kinds.first != nil && kinds.first != "text" && l.has("color") {
                throw StageError(.layerTakesNoColor(label: label, kind: kinds.first!))
            }
            layers.append(Layer(content, l, label: label))
        }
    }

    public var reads: [Resource] {
        layers.flatMap { l -> [Resource] in
            let hint = "; add \"fit\": \"stretch\", \"center\" or \"tile\""
            var r: [Resource] = []
            if case .image(let p?) = l.content {
                r.append(.image(path: p, label: l.label + ".image", sameSize: l.fit == nil, hint: hint))
            }
            if let m = l.mask {
                r.append(.image(path: m, label: l.label + ".mask", sameSize: l.fit == nil, hint: hint))
            }
            if case .text(let t) = l.content {
                r.append(.font(spec: t.font, base: t.fontBase, label: l.label + ".font"))
            }
            return r
        }
    }

    public func planned(_ input: Signature) throws -> [Signature] { [try input.drawnOn(by: Self.name)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        let size = (width: out.width, height: out.height)
        // The incoming image as it arrived, kept (as stored, not as Floats) only when a layer
        // draws it ("@input"): the canvas below is drawn over in place.
        let incoming: Image? = layers.contains { if case .image(nil) = $0.content { true } else { false } } ? out : nil
        var sources: [LayerCanvas.Source] = []
        for l in layers {
            let content: LayerCanvas.Content
            switch l.content {
            case .color(let c):
                content = .color(SIMD4(Float(c.r), Float(c.g), Float(c.b), Float(c.a)))
            case .image(let path):
                if let path {
                    content = .image(
                        try LayerCanvas.fitted(
                            context.image(path, label: l.label + ".image"), l.fit, canvas: size, colorSpace: .srgb,
                            context: &context))
                } else {
                    content = .image(incoming!)
                }
            case .gradient(let from, let to, let angle):
                content = .gradient(from: from, to: to, angle: angle)
            case .text(let t):
                guard let renderer = context.text else { throw StageError(.noTextRenderer(label: l.label)) }
                let bitmap = try renderer.rendered(
                    t.text, font: context.font(t.font, label: l.label + ".font"), size: t.size,
                    outline: t.outline?.width ?? 0)
                content = .text(t, bitmap)
            }
            let mask = try l.mask.map {
                try LayerCanvas.fitted(
                    context.image($0, label: l.label + ".mask"), l.fit, canvas: size, colorSpace: .linear,
                    context: &context)
            }
            sources.append(LayerCanvas.Source(content: content, mask: mask, layer: l))
        }
        // Band by band: the canvas rows as straight Floats, each layer's rows drawn over them, the
        // result rounded back into the same rows. Only a band's rows are ever Floats, so the stage
        // holds the image and its layers as stored (docs/performance.md "Memory"); every pixel
        // goes through the same arithmetic as over a whole canvas, so the bytes are the same.
        let chunk = max(1, LayerCanvas.bandPixels / size.width)
        func draw<C: PixelChannel>(_ p: UnsafeMutableBufferPointer<C>) {
            context.rows.forEachBand(rows: size.height, pixelsPerRow: size.width) { band in
                var y = band.lowerBound
                while y < band.upperBound {
                    let rows = y..<min(band.upperBound, y + chunk)
                    let span = UnsafeMutableBufferPointer(
                        rebasing: p[(rows.lowerBound * size.width * 4)..<(rows.upperBound * size.width * 4)])
                    var canvas = LayerCanvas.floats(UnsafeBufferPointer(span))
                    for source in sources { source.draw(over: &canvas, rows: rows, canvas: size) }
                    LayerCanvas.store(canvas, into: span)
                    y = rows.upperBound
                }
            }
        }
        out.pixels.modify(
            { p in p.withUnsafeMutableBufferPointer { draw($0) } },
            { p in p.withUnsafeMutableBufferPointer { draw($0) } })
        out.layout = .rgba
        out.lossless = false
        return [out]
    }
}
