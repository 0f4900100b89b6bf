public import TexPipeParameters
public import TexPipePixels

/// `normal-blend`: a detail normal map over the incoming (base) normal map (docs/stages.md "Normal
/// maps"), as Barré-Brisebois and Hill define the methods ("Blending in Detail", 2012). Per texel,
/// n1 (base) and n2 (detail) decoded (2c / max − 1) and normalized, n2's X and Y first scaled by
/// `strength` (0: no detail), then
///   `rnm`: t = n1 + (0, 0, 1), u = (−n2.x, −n2.y, n2.z), r = t · (t · u) − u · t.z (Reoriented
///          Normal Mapping: the detail rotated onto the base);
///   `whiteout`: r = (n1.xy + n2.xy, n1.z · n2.z);   `udn`: r = (n1.xy + n2.xy, n1.z);
///   `linear`: r = n1 + n2;
/// and r normalized, written round((r + 1) / 2 · max). Alpha is the base's. Both maps in one
/// convention (flip one with `normal-adjust` first). `detail` must be the base's size, or with
/// `tile` it repeats across it from the top-left.
public struct NormalBlend: Stage {
    public static let name = "normal-blend"
    public static let summary = "a detail normal map over the image: reoriented (RNM), whiteout, UDN or linear"
    public static let identity = #"{"detail": "flat.png", "strength": 0}"#
    public static let identityInput: [[Int]]? = Normal.identityMap

    public enum Method: String, Sendable, CaseIterable { case rnm, whiteout, udn, linear }

    public static let parameters: [Parameter] = [
        Parameter(
            "detail", .text, .required,
            doc: "path of the detail normal map, relative to the manifest, placeholders allowed"),
        .choice("method", Method.self, default: .rnm, doc: "rnm (reoriented), whiteout, udn or linear"),
        .number("strength", in: 0...100, default: 1, doc: "scales the detail's X and Y first: 0 adds nothing"),
        .boolean("tile", default: false, doc: "repeat a detail map of another size across the image"),
    ]

    /// Absolute path of the detail map.
    public var path: String
    public var method: Method
    public var strength: Double
    public var tile: Bool

    public init(_ a: Arguments) {
        path = a.file("detail")
        method = a.choice("method", as: Method.self)
        strength = a.number("strength")
        tile = a.boolean("tile")
    }

    public init(path: String, method: Method = .rnm, strength: Double = 1, tile: Bool = false) {
        (self.path, self.method, self.strength, self.tile) = (path, method, strength, tile)
    }

    public var makesNormalMap: Bool { true }

    public var reads: [Resource] {
        [.image(path: path, label: "detail", sameSize: !tile, hint: " (or \"tile\": true to repeat it)")]
    }

    public func planned(_ input: Signature) throws -> [Signature] { [try input.drawnOn(by: Self.name)] }

    public func applied(to image: __owned Image, context: inout StageContext) throws -> [Image] {
        let detail = try context.image(path, label: "detail")
        guard tile || (detail.width == image.width && detail.height == image.height) else {
            throw StageError(
                .mapSize(
                    label: "detail", width: detail.width, height: detail.height, imageWidth: image.width,
                    imageHeight: image.height))
        }
        var out = consume image
        // The detail at the base's depth (exact for 8 → 16; 16 → 8 rounds), decoded per texel.
        let d = out.depth == 16 ? detail.to16Bit() : detail.to8Bit()
        switch (out.pixels, d.pixels) {
        case (.rgba8(var p), .rgba8(let q)):
            blend(&p, q, out.width, out.height, d.width, d.height, context.rows)
            out.pixels = .rgba8(p)
        case (.rgba16(var p), .rgba16(let q)):
            blend(&p, q, out.width, out.height, d.width, d.height, context.rows)
            out.pixels = .rgba16(p)
        default: preconditionFailure("depths were matched above; the planner admits no HDR image")
        }
        out.layout = .rgba
        out.lossless = false
        return [out]
    }

    func blend<C: PixelChannel>(
        _ p: inout [C], _ q: [C], _ w: Int, _ h: Int, _ dw: Int, _ dh: Int, _ rows: any RowScheduler
    ) {
        // The method is chosen once per image, not per texel.
        switch method {
        case .rnm: blend(&p, q, w, h, dw, dh, rows, RNM.self)
        case .whiteout: blend(&p, q, w, h, dw, dh, rows, Whiteout.self)
        case .udn: blend(&p, q, w, h, dw, dh, rows, UDN.self)
        case .linear: blend(&p, q, w, h, dw, dh, rows, Linear.self)
        }
    }

    func blend<C: PixelChannel, M: BlendMethod>(
        _ p: inout [C], _ q: [C], _ w: Int, _ h: Int, _ dw: Int, _ dh: Int, _ rows: any RowScheduler, _: M.Type
    ) {
        let max = Float(C.maxValue)
        let s = Float(strength)
        let component = Normal.components(C.self)
        p.withUnsafeMutableBufferPointer { base in
            q.withUnsafeBufferPointer { detail in
                component.withUnsafeBufferPointer { unpack in
                    rows.forEachBand(rows: h, pixelsPerRow: w) { band in
                        let read = UnsafeBufferPointer(base)
                        for y in band {
                            let row = (y % dh) * dw
                            var dx = 0
                            var i = y * w * 4
                            for _ in 0..<w {
                                let n1 = Normal(read, i, unpack).normalized()
                                var n2 = Normal(detail, (row + dx) * 4, unpack)
                                n2.x *= s
                                n2.y *= s
                                M.blended(n1, n2.normalized()).normalized().store(into: base, i, max: max)
                                i += 4
                                dx += 1
                                if dx == dw { dx = 0 }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A blend's r from unit n1 (base) and n2 (detail), before normalizing.
protocol BlendMethod {
    static func blended(_ n1: Normal, _ n2: Normal) -> Normal
}

/// Reoriented Normal Mapping: t = n1 + (0, 0, 1), u = (−n2.x, −n2.y, n2.z), r = t · (t · u) − u · t.z.
enum RNM: BlendMethod {
    @inline(__always) static func blended(_ n1: Normal, _ n2: Normal) -> Normal {
        let tz = n1.z + 1
        let d = n1.x * -n2.x + n1.y * -n2.y + tz * n2.z
        return Normal(n1.x * d + n2.x * tz, n1.y * d + n2.y * tz, tz * d - n2.z * tz)
    }
}

/// r = (n1.xy + n2.xy, n1.z · n2.z).
enum Whiteout: BlendMethod {
    @inline(__always) static func blended(_ n1: Normal, _ n2: Normal) -> Normal {
        Normal(n1.x + n2.x, n1.y + n2.y, n1.z * n2.z)
    }
}

/// r = (n1.xy + n2.xy, n1.z).
enum UDN: BlendMethod {
    @inline(__always) static func blended(_ n1: Normal, _ n2: Normal) -> Normal {
        Normal(n1.x + n2.x, n1.y + n2.y, n1.z)
    }
}

/// r = n1 + n2.
enum Linear: BlendMethod {
    @inline(__always) static func blended(_ n1: Normal, _ n2: Normal) -> Normal {
        Normal(n1.x + n2.x, n1.y + n2.y, n1.z + n2.z)
    }
}
