internal import Foundation
internal import TexPipeCodecs
internal import TexPipeEngine
internal import TexPipeManifest
public import TexPipePixels
internal import TexPipePlan
public import TexPipeStages

/// `texpipe inspect`: what a file holds, without running anything. SPEC §4.
public enum Inspector {
    /// A multi-line description of the file, or throws a one-line error.
    public static func describe(path: String, maxPixels: Int = Image.defaultMaxPixels) throws -> String {
        let bytes: [UInt8]
        switch FileReader.read(path) {
        case .success(let b): bytes = b
        case .failure(let e): throw CodecError(e.description)
        }
        let h = try ImageDecoder.header(bytes, path: path)
        let image = try ImageDecoder.decode(bytes, path: path, maxPixels: maxPixels)
        var lines: [String] = []
        var head = "\(path): \(h.format.rawValue) \(h.width)×\(h.height), \(h.colorType) \(h.fileBitDepth)-bit"
        if let promised = ImageFormat.expected(forPath: path), promised != h.format {
            head += " (named .\((path as NSString).pathExtension) but the signature says \(h.format.rawValue))"
        }
        lines.append(head)
        if h.format == .png {
            lines.append(
                "  interlace: \(h.interlaced ? "Adam7" : "none"), tRNS: \(h.hasTransparency ? "yes" : "no"), "
                    + "gamma: \(h.gamma.map { String(format: "%.5f", $0) } ?? "none"), "
                    + "sRGB: \(h.sRGB ? "yes" : "no"), ICC profile: \(h.iccProfile ? "yes" : "no")")
        } else {
            lines.append("  \(h.progressive ? "progressive" : "baseline")")
        }
        lines.append("  decodes to RGBA \(image.depth)-bit")
        let stats = image.alphaStatistics()
        let fraction = Double(stats.transparent) / Double(image.pixelCount) * 100
        lines.append(
            "  alpha: min \(stats.min), max \(stats.max), "
                + String(format: "%.1f%% fully transparent", fraction))
        if let (color, evidence) = likelyKeyColor(image) {
            lines.append("  likely key color: \(color) (\(evidence))")
        }
        return lines.joined(separator: "\n")
    }

    /// The likely key color: the color of the four corner pixels when at least two agree
    /// (cards, sprites with keyed corners), else the most common opaque border color.
    /// Returns it as `rgb(r, g, b)` at 8 bits with what supports it.
    public static func likelyKeyColor(_ image: Image) -> (String, String)? {
        let img = image.to8Bit()
        guard case .rgba8(let p) = img.pixels else { return nil }
        let (w, h) = (img.width, img.height)
        func color(_ x: Int, _ y: Int) -> UInt32? {
            let i = (y * w + x) * 4
            return p[i + 3] == 255 ? UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) : nil
        }
        func name(_ k: UInt32) -> String { "rgb(\(k >> 16), \((k >> 8) & 0xFF), \(k & 0xFF))" }
        func mostCommon(_ colors: [UInt32?]) -> (UInt32, Int)? {
            var counts: [UInt32: Int] = [:]
            for case let c? in colors { counts[c, default: 0] += 1 }
            return counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
                .map { ($0.key, $0.value) }
        }
        if let (k, n) = mostCommon([color(0, 0), color(w - 1, 0), color(0, h - 1), color(w - 1, h - 1)]), n >= 2 {
            return (name(k), "\(n) of 4 corners")
        }
        var border: [UInt32?] = []
        for x in 0..<w { border += [color(x, 0), color(x, h - 1)] }
        for y in 0..<h { border += [color(0, y), color(w - 1, y)] }
        guard let (k, n) = mostCommon(border) else { return nil }
        return (name(k), String(format: "%.0f%% of border pixels", Double(n) / Double(border.count) * 100))
    }
}

/// `texpipe stages`: the reference, printed from the same tables that validate manifests.
public enum StageReference {
    public static func text(for types: [any Stage.Type]) -> String {
        types.map { t in
            var s = "\(t.name) — \(t.summary)"
            if t.parameters.isEmpty { s += "\n  (no parameters)" }
            s += lines(t.parameters, indent: "  ")
            return s
        }.joined(separator: "\n\n")
    }

    /// One line per parameter; a nested table (`layers`, `outline`) is listed below its key.
    static func lines(_ table: [Parameter], indent: String) -> String {
        var s = ""
        for p in table {
            s += "\n\(indent)\(p.name): \(p.expected); \(p.defaultDescription). \(p.doc)"
            switch p.kind {
            case .object(let nested), .objects(let nested): s += lines(nested, indent: indent + "  ")
            default: break
            }
        }
        return s
    }

    public static func settingsText() -> String {
        var s = "Pipeline settings\n  png:"
        for p in PNGSettings.parameters { s += "\n    \(p.name): \(p.expected); \(p.defaultDescription). \(p.doc)" }
        s += "\n  jpeg:"
        for p in JPEGSettings.parameters { s += "\n    \(p.name): \(p.expected); \(p.defaultDescription). \(p.doc)" }
        return s
    }
}
