internal import CDeflate

/// texpipe's own PNG writer (the default `png.encoder`): row filtering in Swift, the zlib stream
/// from libdeflate, chunks with libdeflate's CRC-32. No ancillary chunks, so the bytes depend on
/// the pixels and settings only. libpng stays the decoder and the reference writer
/// (`png.encoder: "libpng"`); the tests decode everything this writes with libpng and run pngcheck.
///
/// Adaptive filtering picks per row the filter whose output has the smallest sum of absolute
/// values (as signed bytes) — libpng's own heuristic. One IDAT chunk; libdeflate compresses the
/// whole stream at once, which is where its speed comes from (it has no streaming mode, so stripes
/// compressed on several cores would each restart the dictionary; jobs already fill the cores).
enum PNGWriter {
    /// `samples`: packed rows of the color type at `bitDepth` (16-bit samples native-endian),
    /// `rowBytes` apart; `palette`/`trns` for color type 3.
    static func encode(
        samples: UnsafeRawBufferPointer, width: Int, height: Int, rowBytes: Int, colorType: Int, bitDepth: Int,
        channels: Int, level: Int, filter: PNGSettings.Filter, palette: [UInt8] = [], trns: [UInt8] = []
    ) throws -> [UInt8] {
        let bpp = max(1, channels * bitDepth / 8)
        let stride = rowBytes + 1
        var filtered = [UInt8](repeating: 0, count: stride * height)
        var previous = [UInt8](repeating: 0, count: rowBytes)
        var current = [UInt8](repeating: 0, count: rowBytes)
        var candidates = [[UInt8]](repeating: [UInt8](repeating: 0, count: rowBytes), count: 5)
        let choices: [Int] = {
            switch filter {
            case .adaptive: return colorType == 3 ? [0] : [0, 1, 2, 3, 4]
            case .none: return [0]
            case .sub: return [1]
            case .up: return [2]
            case .average: return [3]
            case .paeth: return [4]
            }
        }()
        for y in 0..<height {
            // The row as the file stores it: 16-bit samples big-endian.
            let src = samples.baseAddress! + y * rowBytes
            current.withUnsafeMutableBytes { dst in
                dst.copyMemory(from: UnsafeRawBufferPointer(start: src, count: rowBytes))
                if bitDepth == 16 {
                    var i = 0
                    while i + 1 < rowBytes {
                        let t = dst[i]
                        dst[i] = dst[i + 1]
                        dst[i + 1] = t
                        i += 2
                    }
                }
            }
            var best = choices[0]
            var bestScore = Int.max
            for f in choices {
                let score = apply(f, current, previous, bpp, &candidates[f])
                if score < bestScore {
                    bestScore = score
                    best = f
                }
            }
            filtered[y * stride] = UInt8(best)
            filtered.withUnsafeMutableBufferPointer { out in
                candidates[best].withUnsafeBufferPointer { row in
                    UnsafeMutableRawPointer(out.baseAddress! + y * stride + 1)
                        .copyMemory(from: row.baseAddress!, byteCount: rowBytes)
                }
            }
            swap(&previous, &current)
        }
        let idat = try compress(filtered, level: level)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk(&png, "IHDR", be32(width) + be32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, 0])
        if colorType == 3 {
            chunk(&png, "PLTE", palette)
            if !trns.isEmpty { chunk(&png, "tRNS", trns) }
        }
        chunk(&png, "IDAT", idat)
        chunk(&png, "IEND", [])
        return png
    }

    /// Filters one row into `out`; returns the heuristic score Σ |byte as Int8|.
    @inline(__always)
    static func apply(_ f: Int, _ row: [UInt8], _ prior: [UInt8], _ bpp: Int, _ out: inout [UInt8]) -> Int {
        let n = row.count
        var score = 0
        row.withUnsafeBufferPointer { x in
            prior.withUnsafeBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in
                    for i in 0..<n {
                        let a = i >= bpp ? x[i - bpp] : 0
                        let c = i >= bpp ? b[i - bpp] : 0
                        let predictor: UInt8
                        switch f {
                        case 0: predictor = 0
                        case 1: predictor = a
                        case 2: predictor = b[i]
                        case 3: predictor = UInt8((Int(a) + Int(b[i])) >> 1)
                        default:
                            let p = Int(a) + Int(b[i]) - Int(c)
                            let pa = abs(p - Int(a))
                            let pb = abs(p - Int(b[i]))
                            let pc = abs(p - Int(c))
                            predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b[i] : c)
                        }
                        let v = x[i] &- predictor
                        o[i] = v
                        score += abs(Int(Int8(bitPattern: v)))
                    }
                }
            }
        }
        return score
    }

    static func compress(_ data: [UInt8], level: Int) throws -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(Int32(level)) else {
            throw CodecError("PNG encoder: cannot allocate a level \(level) compressor")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, data.count)
        var out = [UInt8](repeating: 0, count: bound)
        let size = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                libdeflate_zlib_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
            }
        }
        guard size > 0 else { throw CodecError("PNG encoder: compression failed") }
        out.removeSubrange(size...)
        return out
    }

    static func chunk(_ png: inout [UInt8], _ type: String, _ data: [UInt8]) {
        let body = Array(type.utf8) + data
        png += be32(data.count)
        png += body
        let crc = body.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
        png += be32(Int(crc))
    }

    static func be32(_ v: Int) -> [UInt8] {
        [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
