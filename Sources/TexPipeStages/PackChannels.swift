public import TexPipeParameters
public import TexPipePixels

/// `pack-channels`: builds the image channel by channel from other images — the ORM and mask maps
/// engines sample (glTF occlusion-roughness-metallic, Unity HDRP's mask map). docs/stages.md.
///
/// Each of `r`, `g`, `b`, `a` is a constant 0…1 (rounded half up to the image's depth), a source
/// `{"image": path, "channel": r|g|b|a|luma, "invert": false, "fit": …}` or absent (the incoming
/// image's own channel stays). `"@input"` is the incoming image as it arrived. A source's stored
/// values are taken as they are — no color conversion: the output is data. `luma` is Rec. 709 on
/// the stored R, G, B: round((2126 R + 7152 G + 722 B) / 10000), half up; a source of another depth
/// is scaled to the image's depth in the same rounding; `invert` gives max − value. A source of
/// another size needs `fit` as in composite (`stretch`: resized in linear values; `center`;
/// `tile`); where a centered source does not reach the value is 0 (max when inverted).
///
/// The image keeps its size and depth and is written in place, row by row (a row of the incoming
/// image is kept aside while its channels are rewritten, for `@input` sources).
public struct PackChannels: Stage {
    public static let name = "pack-channels"
    public static let summary = "builds an image channel by channel from other images (ORM, mask maps)"
    public static let takesHDR = true
    public static let identity = #"{"r": {"image": "@input", "channel": "r"}, "a": 1}"#

    public enum Channel: String, Sendable, CaseIterable { case r, g, b, a, luma }

    static let sourceTable: [Parameter] = [
        Parameter(
            "image", .text, .required,
            doc: "a path relative to the manifest (placeholders allowed) or \"@input\", the incoming image"),
        .choice(
            "channel", Channel.self, default: .r, doc: "which of its channels; luma: Rec. 709 of the stored R, G, B"),
        .boolean("invert", default: false, doc: "max − value (smoothness ↔ roughness)"),
        Parameter(
            "fit", .choice(Composite.Fit.allCases.map(\.rawValue)),
            .optional(absentDoc: "the source must be the image's size"),
            doc: "a source of another size: stretch, center or tile, as in composite"),
    ]

    static let slots = ["r", "g", "b", "a"]

    public static let parameters: [Parameter] = slots.map { slot in
        Parameter(
            slot, .numberOrObject(0...1, sourceTable), .optional(absentDoc: "the incoming image's \(slot)"),
            doc: "the output's \(slot): a constant 0…1 or a source")
    }

    public struct Source: Sendable, Equatable {
        /// Absolute path; nil: `@input`.
        public var path: String?
        public var channel: Channel
        public var invert: Bool
        public var fit: Composite.Fit?

        public init(path: String?, channel: Channel, invert: Bool = false, fit: Composite.Fit? = nil) {
            self.path = path
            self.channel = channel
            self.invert = invert
            self.fit = fit
        }
    }

    public enum Slot: Sendable, Equatable {
        case keep
        case constant(Double)
        case source(Source)
    }

    /// r, g, b, a.
    public var slots: [Slot]

    public init(r: Slot = .keep, g: Slot = .keep, b: Slot = .keep, a: Slot = .keep) { slots = [r, g, b, a] }

    public init(_ a: Arguments) throws {
        slots = Self.slots.map { name in
            switch a.values[name] {
            case nil: return .keep
            case .number(let v)?: return .constant(v)
            case .integer(let v)?: return .constant(Double(v))
            case .object?:
                let s = a.object(name)!
                let path = s.text("image")
                return .source(
                    Source(
                        path: path == "@input" ? nil : s.file("image"), channel: s.choice("channel", as: Channel.self),
                        invert: s.boolean("invert"), fit: s.optionalText("fit").flatMap(Composite.Fit.init(rawValue:))))
            default: preconditionFailure("\(name) is not a decoded constant or source")
            }
        }
    }

    public var reads: [Resource] {
        zip(Self.slots, slots).compactMap { name, slot in
            guard case .source(let s) = slot, let path = s.path else { return nil }
            return .image(
                path: path, label: name + ".image", sameSize: s.fit == nil,
                hint: "; add \"fit\": \"stretch\", \"center\" or \"tile\" to \(name)")
        }
    }

    /// Opaque unless `a` is given as something other than 1; straight alpha once anything is packed.
    public func planned(_ input: Signature) throws -> [Signature] {
        var out = input
        out.layout = layout(input.layout)
        if slots != [.keep, .keep, .keep, .keep] { out.alpha = .straight }
        out.lossless = false
        return [out]
    }

    func layout(_ incoming: ChannelLayout) -> ChannelLayout {
        switch slots[3] {
        case .constant(let v): v == 1 ? .rgb : .rgba
        case .keep: incoming == .rgba ? .rgba : .rgb
        case .source: .rgba
        }
    }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        var out = consume image
        let size = (width: out.width, height: out.height)
        var sources: [Image?] = []
        for (name, slot) in zip(Self.slots, slots) {
            guard case .source(let s) = slot, let path = s.path else {
                sources.append(nil)
                continue
            }
            sources.append(
                try LayerCanvas.fitted(
                    context.image(path, label: name + ".image"), s.fit, canvas: size, colorSpace: .linear,
                    context: &context))
        }
        let plan = slots
        if out.isHDR {
            // HDR: every value as a Float — an HDR source's as it is, an 8/16-bit one's as a fraction of max.
            out.runFloatsInBands(on: SerialRows()) { p in Self.packFloats(p, size, plan, sources) }
            out.layout = layout(out.layout)
            if slots != [.keep, .keep, .keep, .keep] { out.alpha = .straight }
            out.lossless = false
            return [out]
        }
        if let hdr = sources.firstIndex(where: { $0?.isHDR == true }) {
            throw StageError(.hdrSourceNeedsHDR(slot: Self.slots[hdr]))
        }
        out.pixels.modify(
            { p in p.withUnsafeMutableBufferPointer { Self.pack($0, size, plan, sources, rows: context.rows) } },
            { p in p.withUnsafeMutableBufferPointer { Self.pack($0, size, plan, sources, rows: context.rows) } })
        out.layout = layout(out.layout)
        if slots != [.keep, .keep, .keep, .keep] { out.alpha = .straight }
        out.lossless = false
        return [out]
    }

    /// The HDR image's packed slots: constants as given, `@input` channels from the incoming values,
    /// other images' channels placed by `fit` as `copy` places them, luma = 0.2126 R + 0.7152 G +
    /// 0.0722 B, `invert` = 1 − v.
    static func packFloats(
        _ p: UnsafeMutableBufferPointer<Float>, _ size: (width: Int, height: Int), _ slots: [Slot], _ sources: [Image?]
    ) {
        let (w, h) = size
        let incoming = Array(p)
        @inline(__always) func value(_ s: Source, _ image: Image?, _ x: Int, _ y: Int) -> Float {
            let px: SIMD4<Float>
            if let image {
                var (sx, sy) = (x, y)
                switch s.fit {
                case .tile?: (sx, sy) = (x % image.width, y % image.height)
                case .center?: (sx, sy) = (x - (w - image.width) / 2, y - (h - image.height) / 2)
                default: break
                }
                guard sx >= 0, sy >= 0, sx < image.width, sy < image.height else { return s.invert ? 1 : 0 }
                px = image.floatPixel(sx, sy)
            } else {
                let i = (y * w + x) * 4
                px = SIMD4(incoming[i], incoming[i + 1], incoming[i + 2], incoming[i + 3])
            }
            let k = s.channel == .r ? 0 : s.channel == .g ? 1 : s.channel == .b ? 2 : 3
            let v = s.channel == .luma ? 0.2126 * px.x + 0.7152 * px.y + 0.0722 * px.z : px[k]
            return s.invert ? 1 - v : v
        }
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<4 {
                    switch slots[c] {
                    case .keep: continue
                    case .constant(let v): p[(y * w + x) * 4 + c] = Float(v)
                    case .source(let s): p[(y * w + x) * 4 + c] = value(s, s.path == nil ? nil : sources[c], x, y)
                    }
                }
            }
        }
    }

    /// Every packed slot of every row, band by band; a band keeps one incoming row aside.
    static func pack<C: PixelChannel>(
        _ image: UnsafeMutableBufferPointer<C>, _ size: (width: Int, height: Int), _ slots: [Slot], _ sources: [Image?],
        rows: any RowScheduler
    ) {
        let w = size.width
        let readsInput = slots.contains { if case .source(let s) = $0, s.path == nil { true } else { false } }
        rows.forEachBand(rows: size.height, pixelsPerRow: w) { band in
            var kept = [C](repeating: 0, count: readsInput ? w * 4 : 0)
            kept.withUnsafeMutableBufferPointer { kept in
                for y in band {
                    let row = UnsafeMutableBufferPointer(rebasing: image[(y * w * 4)..<((y + 1) * w * 4)])
                    if readsInput { _ = kept.initialize(fromContentsOf: row) }
                    for c in 0..<4 {
                        switch slots[c] {
                        case .keep: continue
                        case .constant(let v):
                            let k = C(Rounding.scaled(v, max: C.maxValue))
                            for x in 0..<w { row[x * 4 + c] = k }
                        case .source(let s):
                            if s.path == nil {
                                copy(
                                    UnsafeBufferPointer(kept), width: w, height: 1, y: 0, into: row, c, s,
                                    canvas: (w, 1))
                            } else {
                                let img = sources[c]!
                                switch img.pixels {
                                case .rgba8(let p):
                                    p.withUnsafeBufferPointer {
                                        copy(
                                            $0, width: img.width, height: img.height, y: y, into: row, c, s,
                                            canvas: size)
                                    }
                                case .rgba16(let p):
                                    p.withUnsafeBufferPointer {
                                        copy(
                                            $0, width: img.width, height: img.height, y: y, into: row, c, s,
                                            canvas: size)
                                    }
                                case .rgbaF32:
                                    preconditionFailure("an HDR source: the planner refuses it in pack-channels")
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Output channel `c` of one row from row `y` of a source placed by its `fit` on a canvas of
    /// `canvas` size. The depth and `luma` choices are made once per row, not per pixel.
    static func copy<C: PixelChannel, S: PixelChannel>(
        _ src: UnsafeBufferPointer<S>, width sw: Int, height sh: Int, y: Int, into row: UnsafeMutableBufferPointer<C>,
        _ c: Int, _ s: Source, canvas: (width: Int, height: Int)
    ) {
        let w = canvas.width
        let outMax = C.maxValue
        let inMax = S.maxValue
        let invert = s.invert
        @inline(__always) func put(_ x: Int, _ v: Int) { row[x * 4 + c] = C(invert ? outMax - v : v) }
        // Where the source row lies: sources of the image's size (the common case) read straight across.
        var left = 0
        var sy = y
        switch s.fit {
        case .tile?: sy = y % sh
        case .center?:
            left = (w - sw) / 2
            sy = y - (canvas.height - sh) / 2
        default: break
        }
        let x0 = s.fit == .tile ? 0 : max(0, left)
        let x1 = s.fit == .tile ? w : min(w, left + sw)
        guard sy >= 0, sy < sh, x0 < x1 else {
            for x in 0..<w { put(x, 0) }
            return
        }
        for x in 0..<x0 { put(x, 0) }
        for x in x1..<max(x1, w) { put(x, 0) }
        let base = sy * sw * 4
        let tile = s.fit == .tile
        @inline(__always) func at(_ x: Int) -> Int { base + (tile ? x % sw : x - left) * 4 }
        if s.channel == .luma {
            // round(L / 10000 · outMax / inMax), half up, L = 2126 R + 7152 G + 722 B.
            let d = 10000 * inMax
            for x in x0..<x1 {
                let i = at(x)
                let l = 2126 * Int(src[i]) + 7152 * Int(src[i + 1]) + 722 * Int(src[i + 2])
                put(x, inMax == outMax ? (l + 5000) / 10000 : Rounding.divRound(l * outMax, d))
            }
            return
        }
        let k = s.channel == .r ? 0 : s.channel == .g ? 1 : s.channel == .b ? 2 : 3
        if inMax == outMax {
            for x in x0..<x1 { put(x, Int(src[at(x) + k])) }
        } else if outMax > inMax {  // 8 → 16 bits: v · 257, exact
            for x in x0..<x1 { put(x, Int(src[at(x) + k]) * 257) }
        } else {
            for x in x0..<x1 { put(x, Rounding.divRound(Int(src[at(x) + k]) * outMax, inMax)) }
        }
    }
}
