/// An independent PNG writer for test fixtures: stored (uncompressed) deflate blocks,
/// its own CRC-32 and Adler-32, every color type and bit depth, tRNS, all five row filters
/// and Adam7 interlacing. It shares no code with texpipe's encoder, so decoding what it
/// writes checks the decoder against the PNG specification, not against ourselves.
public enum ReferencePNG {
    public struct Spec {
        public var width: Int
        public var height: Int
        public var colorType: Int  // 0, 2, 3, 4, 6
        public var bitDepth: Int
        public var interlaced = false
        /// Samples per pixel in file order (gray; RGB; index; gray, alpha; RGBA), row-major.
        public var samples: [Int]
        public var palette: [(Int, Int, Int)] = []
        /// tRNS: gray value (type 0), RGB triple (type 2) or alpha per palette entry (type 3).
        public var trns: [Int]? = nil

        public init(
            width: Int, height: Int, colorType: Int, bitDepth: Int, interlaced: Bool = false, samples: [Int],
            palette: [(Int, Int, Int)] = [], trns: [Int]? = nil
        ) {
            (self.width, self.height, self.colorType, self.bitDepth) = (width, height, colorType, bitDepth)
            (self.interlaced, self.samples, self.palette, self.trns) = (interlaced, samples, palette, trns)
        }
    }

    public static var channels: [Int: Int] { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4] }

    public static func encode(_ s: Spec) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr = be32(s.width) + be32(s.height)
        ihdr += [UInt8(s.bitDepth), UInt8(s.colorType), 0, 0, s.interlaced ? 1 : 0]
        out += chunk("IHDR", ihdr)
        if s.colorType == 3 {
            out += chunk("PLTE", s.palette.flatMap { [UInt8($0.0), UInt8($0.1), UInt8($0.2)] })
        }
        if let t = s.trns {
            switch s.colorType {
            case 3: out += chunk("tRNS", t.map { UInt8($0) })
            default: out += chunk("tRNS", t.flatMap { be16($0) })
            }
        }
        out += chunk("IDAT", zlibStored(scanlines(s)))
        out += chunk("IEND", [])
        return out
    }

    /// Filtered scanlines, pass by pass when interlaced. Filter type cycles 0…4 by row.
    public static func scanlines(_ s: Spec) -> [UInt8] {
        let ch = channels[s.colorType]!
        let passes: [(x0: Int, y0: Int, dx: Int, dy: Int)] =
            s.interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var data: [UInt8] = []
        var rowNumber = 0
        for p in passes {
            let xs = Array(stride(from: p.x0, to: s.width, by: p.dx))
            let ys = Array(stride(from: p.y0, to: s.height, by: p.dy))
            if xs.isEmpty || ys.isEmpty { continue }
            let bitsPerPixel = ch * s.bitDepth
            let bpp = max(1, bitsPerPixel / 8)
            var previous = [UInt8](repeating: 0, count: (xs.count * bitsPerPixel + 7) / 8)
            for y in ys {
                var row: [UInt8] = []
                var acc = 0
                var nbits = 0
                for x in xs {
                    for c in 0..<ch {
                        let v = s.samples[(y * s.width + x) * ch + c]
                        if s.bitDepth == 16 {
                            row += be16(v)
                        } else {
                            acc = (acc << s.bitDepth) | v
                            nbits += s.bitDepth
                            if nbits == 8 {
                                row.append(UInt8(acc))
                                acc = 0
                                nbits = 0
                            }
                        }
                    }
                }
                if nbits > 0 { row.append(UInt8(acc << (8 - nbits))) }
                let filter = rowNumber % 5
                rowNumber += 1
                data.append(UInt8(filter))
                data += applyFilter(filter, row, previous, bpp)
                previous = row
            }
        }
        return data
    }

    public static func applyFilter(_ f: Int, _ row: [UInt8], _ prior: [UInt8], _ bpp: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: row.count)
        for i in 0..<row.count {
            let a = i >= bpp ? Int(row[i - bpp]) : 0
            let b = Int(prior[i])
            let c = i >= bpp ? Int(prior[i - bpp]) : 0
            let predictor: Int
            switch f {
            case 0: predictor = 0
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            default:
                let p = a + b - c
                let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            }
            out[i] = UInt8((Int(row[i]) - predictor) & 0xFF)
        }
        return out
    }

    public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let final: UInt8 = i + n == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<i + n]
            i += n
        } while i < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(Int(b << 16 | a))
    }

    public static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc(body)))
    }

    public static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }
    public static func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// What a decoder to RGBA must produce: 8-bit for depths ≤ 8 (low depths scaled up
    /// exactly: v · 255 / (2^d − 1)), 16-bit for 16; tRNS matches become alpha 0.
    public static func expectedRGBA(_ s: Spec) -> [Int] {
        let ch = channels[s.colorType]!
        let outMax = s.bitDepth == 16 ? 65535 : 255
        let inMax = (1 << s.bitDepth) - 1
        func scale(_ v: Int) -> Int { s.bitDepth == 16 ? v : v * 255 / inMax }
        var out: [Int] = []
        for i in 0..<(s.width * s.height) {
            let px = Array(s.samples[i * ch..<(i + 1) * ch])
            switch s.colorType {
            case 0:
                let a = s.trns.map { $0[0] == px[0] ? 0 : outMax } ?? outMax
                out += [scale(px[0]), scale(px[0]), scale(px[0]), a]
            case 2:
                let a = s.trns.map { $0 == px ? 0 : outMax } ?? outMax
                out += px.map(scale) + [a]
            case 3:
                let e = s.palette[px[0]]
                let a = s.trns.flatMap { px[0] < $0.count ? $0[px[0]] : nil } ?? 255
                out += [e.0, e.1, e.2, a]
            case 4:
                out += [scale(px[0]), scale(px[0]), scale(px[0]), scale(px[1])]
            default:
                out += px.map(scale)
            }
        }
        return out
    }
}

/// SplitMix64: seeded, so every fixture is the same on every run and machine.
public struct SeededRandom {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
