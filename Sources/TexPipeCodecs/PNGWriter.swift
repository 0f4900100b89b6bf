internal import CDeflate
internal import TexPipeFormats
internal import TexPipePixels

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
        channels: Int, level: Int, filter: PNGSettings.Filter, palette: [UInt8] = [], trns: [UInt8] = [],
        rows scheduler: any RowScheduler = SerialRows()
    ) throws -> [UInt8] {
        let data = filtered(
            samples: samples, width: width, height: height, rowBytes: rowBytes, colorType: colorType,
            bitDepth: bitDepth, channels: channels, filter: filter, rows: scheduler)
        return try assemble(
            head: head(
                width: width, height: height, colorType: colorType, bitDepth: bitDepth, palette: palette, trns: trns),
            compressing: data, level: level)
    }

    /// Signature, IHDR and, for color type 3, PLTE and tRNS.
    static func head(
        width: Int, height: Int, colorType: Int, bitDepth: Int, palette: [UInt8] = [], trns: [UInt8] = []
    ) -> [UInt8] {
        var head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk(&head, "IHDR", be32(width) + be32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, 0])
        if colorType == 3 {
            chunk(&head, "PLTE", palette)
            if !trns.isEmpty { chunk(&head, "tRNS", trns) }
        }
        return head
    }

    /// The filtered rows (a filter byte, then the row) that the zlib stream compresses.
    ///
    /// `picks`: when given, `samples` are RGBA rows (`width` × 4 samples) and each output pixel takes
    /// these channels of them (RGB: [0, 1, 2]; gray + alpha: [0, 3]), packed row by row as the rows
    /// are filtered — no packed copy of the image exists (docs/performance.md "Memory").
    static func filtered(
        samples: UnsafeRawBufferPointer, width: Int, height: Int, rowBytes: Int, colorType: Int, bitDepth: Int,
        channels: Int, filter: PNGSettings.Filter, picks: [Int]? = nil, rows scheduler: any RowScheduler = SerialRows()
    ) -> [UInt8] {
        let bpp = max(1, channels * bitDepth / 8)
        let stride = rowBytes + 1
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
        let source = samples.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let rowSource = RowSource(
            base: source, rowBytes: picks == nil ? rowBytes : width * 4 * (bitDepth / 8), width: width,
            sampleBytes: max(1, bitDepth / 8), picks: picks ?? [])
        // Every byte is written (a filter byte and the row), so no zero fill. Rows depend only on
        // the unfiltered rows, so bands of them run on the cores the engine lends, same bytes.
        return [UInt8](unsafeUninitializedCapacity: stride * height) { out, count in
            let out = out.baseAddress!
            scheduler.forEachBand(rows: height, pixelsPerRow: width) { rows in
                filterRows(
                    rows, rowSource, rowBytes: rowBytes, bpp: bpp, swapBytes: bitDepth == 16, choices: choices,
                    into: out)
            }
            count = stride * height
        }
    }

    /// Where a row's unfiltered bytes come from: stored as they are, or picked from RGBA rows.
    struct RowSource {
        var base: UnsafePointer<UInt8>
        var rowBytes: Int
        var width: Int
        var sampleBytes: Int
        var picks: [Int]

        /// Row y, packed, into `row` (native-endian samples).
        func copy(_ y: Int, into row: UnsafeMutablePointer<UInt8>, count: Int) {
            let src = base + y * rowBytes
            if picks.isEmpty {
                row.update(from: src, count: count)
            } else if sampleBytes == 1 {
                Self.pick(UnsafeRawPointer(src).assumingMemoryBound(to: UInt8.self), row, width, picks)
            } else {
                Self.pick(
                    UnsafeRawPointer(src).assumingMemoryBound(to: UInt16.self),
                    UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self), width, picks)
            }
        }

        @inline(__always)
        static func pick<T>(_ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>, _ width: Int, _ picks: [Int]) {
            if picks == [0, 1, 2] {
                for x in 0..<width {
                    dst[3 * x] = src[4 * x]
                    dst[3 * x + 1] = src[4 * x + 1]
                    dst[3 * x + 2] = src[4 * x + 2]
                }
                return
            }
            let n = picks.count
            for x in 0..<width {
                for (j, c) in picks.enumerated() { dst[n * x + j] = src[4 * x + c] }
            }
        }
    }

    /// Filters one row with filter `f` into `o` and returns the heuristic's score, the sum of the
    /// filtered bytes as signed magnitudes. 16 bytes at a time with SIMD (every predictor reads the
    /// unfiltered rows only, so there is no carried dependency), the first `bpp` bytes and the tail
    /// scalar; the same bytes as `applyScalar`. Widening goes through 8-lane halves: the standard
    /// library's SIMD16<UInt8> → SIMD16<Int16 or UInt32> conversions are out-of-line calls on
    /// x86-64 (a 256-bit type without AVX2), while the 8-lane ones are one unpack instruction.
    static func apply(
        _ f: Int, _ x: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, _ n: Int, _ bpp: Int,
        _ o: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let head = min(bpp, n)
        var score = applyScalar(f, x, b, 0, head, bpp, o)
        var i = head
        // Lane sums of |byte|, at most 2 · 255 per block: flushed every 128 blocks, before UInt16 overflows.
        var sum = SIMD8<UInt16>(repeating: 0)
        var blocks = 0
        @inline(__always) func load(_ p: UnsafeMutablePointer<UInt8>, _ k: Int) -> SIMD16<UInt8> {
            UnsafeRawPointer(p + k).loadUnaligned(as: SIMD16<UInt8>.self)
        }
        @inline(__always) func put(_ v: SIMD16<UInt8>, _ k: Int) {
            UnsafeMutableRawPointer(o + k).storeBytes(of: v, as: SIMD16<UInt8>.self)
            let magnitude = pointwiseMinBytes(v, 0 &- v)  // |v as Int8|, as an unsigned byte
            sum &+=
                SIMD8<UInt16>(truncatingIfNeeded: magnitude.lowHalf)
                &+ SIMD8<UInt16>(truncatingIfNeeded: magnitude.highHalf)
            blocks += 1
            if blocks == 128 {
                score += sum.indices.reduce(0) { $0 + Int(sum[$1]) }
                sum = .zero
                blocks = 0
            }
        }
        while i + 16 <= n {
            let cur = load(x, i)
            switch f {
            case 0: put(cur, i)
            case 1: put(cur &- load(x, i - bpp), i)
            case 2: put(cur &- load(b, i), i)
            case 3:
                let a = load(x, i - bpp)
                let up = load(b, i)
                put(cur &- ((a & up) &+ ((a ^ up) &>> 1)), i)
            default:
                let a = load(x, i - bpp)
                let up = load(b, i)
                let c = load(b, i - bpp)
                let low = paeth(widen(a.lowHalf), widen(up.lowHalf), widen(c.lowHalf))
                let high = paeth(widen(a.highHalf), widen(up.highHalf), widen(c.highHalf))
                let predictor = SIMD16(
                    lowHalf: SIMD8<UInt8>(truncatingIfNeeded: low), highHalf: SIMD8<UInt8>(truncatingIfNeeded: high))
                put(cur &- predictor, i)
            }
            i += 16
        }
        score += sum.indices.reduce(0) { $0 + Int(sum[$1]) }
        return score + applyScalar(f, x, b, i, n, bpp, o)
    }

    @inline(__always) static func widen(_ v: SIMD8<UInt8>) -> SIMD8<Int16> { SIMD8<Int16>(truncatingIfNeeded: v) }

    /// min(v, w) per byte, unsigned (one pminub).
    @inline(__always) static func pointwiseMinBytes(_ v: SIMD16<UInt8>, _ w: SIMD16<UInt8>) -> SIMD16<UInt8> {
        v.replacing(with: w, where: w .< v)
    }

    /// The Paeth predictor (PNG spec §9.4) in 16-bit lanes, branch-free.
    @inline(__always) static func paeth(_ a: SIMD8<Int16>, _ up: SIMD8<Int16>, _ c: SIMD8<Int16>) -> SIMD8<Int16> {
        let pa = magnitude(up &- c)
        let pb = magnitude(a &- c)
        let pc = magnitude(a &+ up &- 2 &* c)
        // All-ones lanes where a condition holds.
        let takeUp = (pc &- pb) &>> 15 ^ -1  // pb <= pc
        let takeA = ((pb &- pa) | (pc &- pa)) &>> 15 ^ -1  // pa <= pb && pa <= pc
        let predictor = (up & takeUp) | (c & ~takeUp)
        return (a & takeA) | (predictor & ~takeA)
    }

    @inline(__always) static func magnitude(_ d: SIMD8<Int16>) -> SIMD8<Int16> {
        let sign = d &>> 15
        return (d ^ sign) &- sign
    }

    /// Filters bytes `from..<to` of a row one at a time (the reference, and the edges of `apply`).
    static func applyScalar(
        _ f: Int, _ x: UnsafeMutablePointer<UInt8>, _ b: UnsafeMutablePointer<UInt8>, _ from: Int, _ to: Int,
        _ bpp: Int, _ o: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var score = 0
        for i in from..<to {
            let a = i >= bpp ? Int(x[i - bpp]) : 0
            let up = Int(b[i])
            let c = i >= bpp ? Int(b[i - bpp]) : 0
            let predictor: Int
            switch f {
            case 0: predictor = 0
            case 1: predictor = a
            case 2: predictor = up
            case 3: predictor = (a + up) >> 1
            default:
                let pa = abs(up - c)
                let pb = abs(a - c)
                let pc = abs(a + up - 2 * c)
                predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? up : c)
            }
            let v = x[i] &- UInt8(truncatingIfNeeded: predictor)
            o[i] = v
            score += Int(Int8(bitPattern: v).magnitude)
        }
        return score
    }

    /// Filters rows `rows` of `source` into `out` (stride rowBytes + 1): per row the filter of
    /// `choices` with the smallest score. The band's first row is predicted from the source row
    /// above it, exactly as in one pass over the image.
    static func filterRows(
        _ rows: Range<Int>, _ source: RowSource, rowBytes: Int, bpp: Int, swapBytes: Bool, choices: [Int],
        into out: UnsafeMutablePointer<UInt8>
    ) {
        // Scratch: the previous and current rows as stored, and one candidate per filter.
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 7 * rowBytes)
        defer { scratch.deallocate() }
        scratch.initialize(repeating: 0, count: 7 * rowBytes)
        var previous = scratch
        var current = scratch + rowBytes
        let candidates = scratch + 2 * rowBytes
        /// Row y as the file stores it (16-bit samples big-endian) into `row`.
        func stored(_ y: Int, into row: UnsafeMutablePointer<UInt8>) {
            source.copy(y, into: row, count: rowBytes)
            guard swapBytes else { return }
            var i = 0
            while i + 1 < rowBytes {
                let t = row[i]
                row[i] = row[i + 1]
                row[i + 1] = t
                i += 2
            }
        }
        if rows.lowerBound > 0 { stored(rows.lowerBound - 1, into: previous) }
        for y in rows {
            stored(y, into: current)
            var best = choices[0]
            var bestScore = Int.max
            for f in choices {
                let score = apply(f, current, previous, rowBytes, bpp, candidates + f * rowBytes)
                if score < bestScore {
                    bestScore = score
                    best = f
                }
            }
            let stride = rowBytes + 1
            out[y * stride] = UInt8(best)
            (out + y * stride + 1).update(from: candidates + best * rowBytes, count: rowBytes)
            swap(&previous, &current)
        }
    }

    /// `head` (signature, IHDR, PLTE, tRNS), then one IDAT compressed by libdeflate straight into
    /// the file's own buffer, then IEND. The buffer is reserved at libdeflate's bound but never
    /// zero-filled, so only the pages the compressed bytes reach are touched: a large image's peak
    /// is its pixels, its filtered rows and its compressed size, not a second uncompressed copy.
    static func assemble(head: [UInt8], compressing data: [UInt8], level: Int) throws -> [UInt8] {
        guard let compressor = libdeflate_alloc_compressor(Int32(level)) else {
            throw CodecError(.pngCompressorUnavailable(level: level))
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, data.count)
        var iend: [UInt8] = []
        chunk(&iend, "IEND", [])
        var failure: String?
        let png = [UInt8](unsafeUninitializedCapacity: head.count + 8 + bound + 4 + iend.count) { out, count in
            let base = out.baseAddress!
            base.initialize(from: head, count: head.count)
            // IDAT: length, type, the compressed bytes written in place, CRC of type and data.
            let idat = base + head.count
            let size = data.withUnsafeBytes { src in
                libdeflate_zlib_compress(compressor, src.baseAddress, src.count, idat + 8, bound)
            }
            guard size > 0, size <= 0x7FFF_FFFF else {
                failure = size > 0 ? "image data over 2 GiB compressed" : "compression failed"
                count = 0
                return
            }
            idat.initialize(from: be32(size) + Array("IDAT".utf8), count: 8)
            let crc = UInt32(libdeflate_crc32(0, idat + 4, size + 4))
            (idat + 8 + size).initialize(from: be32(Int(crc)) + iend, count: 4 + iend.count)
            count = head.count + 12 + size + iend.count
        }
        if let failure { throw CodecError(.encoderFailed(format: "PNG", why: failure)) }
        return png
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
