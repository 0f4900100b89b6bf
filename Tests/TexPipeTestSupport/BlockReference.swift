internal import Foundation
internal import Testing
public import TexPipeFormats

/// texture2ddecoder (PyPI), the independent decoder the block tests compare with, and the test
/// picture they encode.
public enum BlockReference {
    public static let hasDecoder = Python.has("texture2ddecoder")

    /// texture2ddecoder's RGBA for `blocks` of a w × h level (decoded at whole blocks, then cut).
    public static func reference(_ blocks: [UInt8], _ format: TextureSettings.Format, _ w: Int, _ h: Int) throws
        -> [UInt8]
    {
        try reference(blocks, decoder: format.rawValue, w, h)
    }

    /// The same through texture2ddecoder's `decode_<decoder>` (`etc2`, `eacr`, …), as RGBA; `astc`
    /// with the format's block size (`block`).
    public static func reference(
        _ blocks: [UInt8], decoder: String, _ w: Int, _ h: Int, block: (Int, Int) = (4, 4)
    ) throws -> [UInt8] {
        let t = TempDir()
        t.write("blocks.bin", blocks)
        let pw = (w + block.0 - 1) / block.0 * block.0
        let ph = (h + block.1 - 1) / block.1 * block.1
        let bgra = try Python.run(
            "import sys, texture2ddecoder as t; d = open(sys.argv[1], 'rb').read(); "
                + "f = getattr(t, 'decode_' + sys.argv[2]); w, h, bw, bh = map(int, sys.argv[3:7]); "
                + "sys.stdout.buffer.write(f(d, w, h, bw, bh) if sys.argv[2] == 'astc' else f(d, w, h))",
            t.path + "/blocks.bin", decoder, String(pw), String(ph), String(block.0), String(block.1))
        #expect(bgra.count == pw * ph * 4)
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let s = (y * pw + x) * 4
                let d = (y * w + x) * 4
                (out[d], out[d + 1], out[d + 2], out[d + 3]) = (bgra[s + 2], bgra[s + 1], bgra[s], bgra[s + 3])
            }
        }
        return out
    }

    /// One level of a Basis Universal file transcoded to one GPU target by the transcoder,
    /// decoded by texture2ddecoder and held against the RGBA transcode (`basisu_reference.py
    /// targets`).
    public struct Transcoded {
        public var target: String
        public var level: Int
        public var bytes: Int
        public var rgbMaxDiff: Int
        public var rgbPSNR: Double
        public var alphaMaxDiff: Int

        /// The bytes the target's 4 × 4 blocks take for a w × h level (8 for ETC1 and BC1, else 16).
        public func expectedBytes(_ w: Int, _ h: Int) -> Int {
            ((w + 3) / 4) * ((h + 3) / 4) * (target == "etc1" || target == "bc1" ? 8 : 16)
        }
    }

    /// Every level of the KTX2 at `path` to every GPU target the transcoder has; its ETC1
    /// transcode also written at `etc1` as a KTX2 a client can draw.
    public static func transcodedTargets(_ path: String, etc1: String) throws -> [Transcoded] {
        let report = String(
            decoding: try Python.run([Python.script("basisu_reference.py"), "targets", path, etc1]), as: UTF8.self)
        return report.split(separator: "\n").map { line in
            let f = line.split(separator: " ").map(String.init)
            return Transcoded(
                target: f[0], level: Int(f[1])!, bytes: Int(f[2])!, rgbMaxDiff: Int(f[3])!, rgbPSNR: Double(f[4])!,
                alphaMaxDiff: Int(f[5])!)
        }
    }

    /// A test picture: gradients, edges and noise in red and green, a blue ramp, and (with
    /// `alpha`) a soft-edged disc of coverage.
    public static func picture(_ w: Int, _ h: Int, seed: UInt64, alpha: Bool = false) -> [UInt8] {
        var r = SeededRandom(seed: seed)
        var p = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                let edge = (x / 11 + y / 7) % 3 == 0 ? 60 : 0
                p[i] = UInt8(min(255, x * 255 / max(1, w - 1) / 2 + edge + r.int(0...20)))
                p[i + 1] = UInt8(min(255, y * 255 / max(1, h - 1) * 3 / 4 + r.int(0...8)))
                p[i + 2] = UInt8((x + y) * 255 / max(1, w + h - 2))
                if alpha {
                    let d = (Double(x - w / 2) * Double(x - w / 2) + Double(y - h / 2) * Double(y - h / 2)).squareRoot()
                    p[i + 3] = UInt8(max(0, min(255, 255 - (d - Double(min(w, h)) / 3) * 16)))
                }
            }
        }
        return p
    }

}

/// Every format texpipe's BC encoders write, from the format table.
public let bcFormats = TextureSettings.Format.allCases.filter {
    if case .bc = $0.info.codec { return true }
    return false
}
