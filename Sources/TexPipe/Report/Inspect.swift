internal import Foundation

/// `texpipe inspect`: what a file holds, without running anything. SPEC §4.
public enum Inspector {
    /// A multi-line description of the file, or throws a one-line error.
    public static func describe(path: String, maxPixels: Int = Decoder.defaultMaxPixels) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CodecError("cannot read the file")
        }
        let bytes = Array(data)
        let h = try Decoder.header(bytes, path: path)
        let image = try Decoder.decode(bytes, path: path, maxPixels: maxPixels)
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
        if let (color, share) = likelyKeyColor(image) {
            lines.append(
                "  likely key color: \(color) (" + String(format: "%.0f%%", share * 100) + " of border pixels)")
        }
        return lines.joined(separator: "\n")
    }

    /// The most common opaque color on the 1-px border, at 8 bits, and its share of the border.
    public static func likelyKeyColor(_ image: Image) -> (String, Double)? {
        let img = image.to8Bit()
        guard case .rgba8(let p) = img.pixels else { return nil }
        var counts: [UInt32: Int] = [:]
        var border = 0
        let (w, h) = (img.width, img.height)
        func visit(_ x: Int, _ y: Int) {
            let i = (y * w + x) * 4
            border += 1
            guard p[i + 3] == 255 else { return }
            counts[UInt32(p[i]) << 16 | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]), default: 0] += 1
        }
        for x in 0..<w {
            visit(x, 0)
            if h > 1 { visit(x, h - 1) }
        }
        if h > 2 {
            for y in 1..<(h - 1) {
                visit(0, y)
                if w > 1 { visit(w - 1, y) }
            }
        }
        guard let best = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }) else {
            return nil
        }
        let k = best.key
        return ("rgb(\(k >> 16), \((k >> 8) & 0xFF), \(k & 0xFF))", Double(best.value) / Double(border))
    }
}

/// `texpipe stages`: the reference, printed from the same tables that validate manifests.
public enum StageReference {
    public static func text(for types: [any Stage.Type]) -> String {
        types.map { t in
            var s = "\(t.name) — \(t.summary)"
            if t.parameters.isEmpty { s += "\n  (no parameters)" }
            for p in t.parameters {
                s += "\n  \(p.name): \(p.expected); \(p.defaultDescription). \(p.doc)"
            }
            return s
        }.joined(separator: "\n\n")
    }

    public static func settingsText() -> String {
        var s = "Pipeline settings\n  png:"
        for p in PNGSettings.parameters { s += "\n    \(p.name): \(p.expected); \(p.defaultDescription). \(p.doc)" }
        s += "\n  jpeg:"
        for p in JPEGSettings.parameters { s += "\n    \(p.name): \(p.expected); \(p.defaultDescription). \(p.doc)" }
        return s
    }
}
