internal import CDeflate
internal import TexPipeFormats
internal import TexPipePixels

/// texpipe's own reader for the PNGs a texture pipeline meets most: 8-bit gray, gray+alpha, RGB
/// and RGBA, not interlaced. The zlib stream is inflated in one call by libdeflate (about twice
/// zlib's speed) straight into the image's own buffer, and the rows are unfiltered in place.
///
/// libpng stays the reader of everything else and the judge of every irregular file: whenever
/// this reader meets anything it does not fully understand — another color type or depth, a tRNS
/// or PLTE chunk, an unknown critical chunk, chunks out of order, a CRC mismatch, a zlib stream
/// that is short, long, followed by extra data or damaged, a filter byte above 4 — it returns nil
/// and the caller decodes with libpng, so errors, warnings and "damage" are libpng's, word for
/// word. On the files it accepts, the pixels are libpng's (tested on every fixture and on
/// thousands of mutated files: when this reader answers, libpng gives the same pixels).
///
/// Memory: one buffer of max(4·w·h, h·(1 + s·w)) bytes (s = samples per pixel). The filtered rows
/// are inflated into its tail; row y is unfiltered into a scratch row and widened to RGBA at its
/// head. Row y's RGBA bytes end at 4w(y+1), which never passes the start of filtered row y+1
/// (tail offset + (y+1)(1 + s·w)), so nothing is read after it is overwritten.
enum PNGReader {
    /// libpng's default user limit on width and height; larger images go to libpng for its message.
    static let maxDimension = 1_000_000

    /// The image, or nil when the file is not one this reader takes (or has more than `maxPixels`).
    static func decode(_ bytes: [UInt8], maxPixels: Int = Image.defaultMaxPixels) -> Image? {
        var file = bytes
        return decode(taking: &file, maxPixels: maxPixels)
    }

    /// The same, from bytes the caller gives up: on success `file` is emptied (its buffer freed
    /// if the caller held no other reference); on nil it is left exactly as it was, for libpng.
    ///
    /// Several IDAT chunks are made one contiguous zlib stream in the file's own buffer — their
    /// data moved together over the 12 bytes of chunk framing between them — and put back when
    /// the reader steps aside, so no second copy of the compressed data exists: a file that does
    /// not compress (noise) peaks at its bytes plus the image's, not twice its bytes plus the
    /// image's (docs/performance.md "Memory").
    static func decode(taking file: inout [UInt8], maxPixels: Int) -> Image? {
        guard let layout = file.withUnsafeBufferPointer({ scan($0) }), layout.width * layout.height <= maxPixels
        else { return nil }
        let (w, h, s) = (layout.width, layout.height, layout.samples)
        let filteredRow = 1 + s * w
        let filteredSize = h * filteredRow
        let capacity = max(4 * w * h, filteredSize)
        let tail = capacity - filteredSize
        var ok = false
        let pixels = file.withUnsafeMutableBufferPointer { file in
            [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                count = 4 * w * h
                guard let base = buffer.baseAddress, inflate(file, layout.idat, into: base + tail, size: filteredSize)
                else {
                    buffer.initialize(repeating: 0)
                    return
                }
                ok = unfilterRows(base, tail: tail, width: w, height: h, samples: s)
                if !ok { buffer.initialize(repeating: 0) }
            }
        }
        guard ok else { return nil }
        file = []
        return Image(width: w, height: h, pixels: .rgba8(pixels))
    }

    struct Layout {
        var width: Int
        var height: Int
        var samples: Int
        /// Offset and length of each IDAT chunk's data, in file order.
        var idat: [(offset: Int, length: Int)]
    }

    /// Walks the chunks (every CRC checked) and returns the layout, or nil for anything irregular.
    static func scan(_ file: UnsafeBufferPointer<UInt8>) -> Layout? {
        guard let base = file.baseAddress, ImageFormat.sniff(Array(file.prefix(8))) == .png else { return nil }
        func be32(_ at: Int) -> Int {
            Int(base[at]) << 24 | Int(base[at + 1]) << 16 | Int(base[at + 2]) << 8 | Int(base[at + 3])
        }
        var layout = Layout(width: 0, height: 0, samples: 0, idat: [])
        // 0: before the first IDAT, 1: inside the IDAT run, 2: after it.
        var idatState = 0
        var pos = 8
        while pos + 12 <= file.count {
            let length = be32(pos)
            guard length <= 0x7FFF_FFFF, length <= file.count - pos - 12 else { return nil }
            let type = (0..<4).map { base[pos + 4 + $0] }
            // Letters only; the third letter (reserved bit) upper case.
            guard type.allSatisfy({ (65...90).contains($0 & 0xDF) }), type[2] & 0x20 == 0 else { return nil }
            let crc = UInt32(libdeflate_crc32(0, base + pos + 4, length + 4))
            guard crc == UInt32(be32(pos + 8 + length)) else { return nil }
            let data = pos + 8
            let name = String(decoding: type, as: UTF8.self)
            if pos == 8 && name != "IHDR" { return nil }
            switch name {
            case "IHDR":
                guard pos == 8, length == 13 else { return nil }
                let (w, h) = (be32(data), be32(data + 4))
                let (depth, color, compression, filter, interlace) =
                    (base[data + 8], base[data + 9], base[data + 10], base[data + 11], base[data + 12])
                guard (1...maxDimension).contains(w), (1...maxDimension).contains(h), depth == 8,
                    compression == 0, filter == 0, interlace == 0
                else { return nil }
                switch color {
                case 0: layout.samples = 1
                case 4: layout.samples = 2
                case 2: layout.samples = 3
                case 6: layout.samples = 4
                default: return nil
                }
                (layout.width, layout.height) = (w, h)
            case "IDAT":
                guard idatState != 2 else { return nil }
                idatState = 1
                layout.idat.append((data, length))
            case "IEND":
                guard idatState != 0, length == 0 else { return nil }
                return layout
            case "PLTE", "tRNS":
                return nil
            default:
                guard type[0] & 0x20 != 0 else { return nil }  // an unknown critical chunk
                if idatState == 1 { idatState = 2 }
            }
            pos = data + length + 4
        }
        return nil  // no IEND
    }

    /// Inflates the IDAT data into exactly `size` bytes at `out`; false unless the stream is whole,
    /// produces exactly `size` bytes and is the last thing in the IDAT run. The file is as it was
    /// when this returns.
    static func inflate(
        _ file: UnsafeMutableBufferPointer<UInt8>, _ idat: [(offset: Int, length: Int)],
        into out: UnsafeMutablePointer<UInt8>, size: Int
    ) -> Bool {
        guard let decompressor = libdeflate_alloc_decompressor() else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        let base = file.baseAddress!
        func run(_ input: UnsafeRawPointer, _ count: Int) -> Bool {
            var consumed = 0
            var produced = 0
            let result = libdeflate_zlib_decompress_ex(decompressor, input, count, out, size, &consumed, &produced)
            return result == LIBDEFLATE_SUCCESS && consumed == count && produced == size
        }
        if idat.count == 1 {
            return run(base + idat[0].offset, idat[0].length)
        }
        // Several IDAT chunks: their data moved together behind the first's (left, in order, so
        // nothing is overwritten before it has moved); the framing between two chunks is kept
        // aside first (still in place then: every move so far ended before it).
        var framing: [[UInt8]] = []
        var end = idat[0].offset + idat[0].length
        for (previous, chunk) in zip(idat, idat.dropFirst()) {
            let gap = previous.offset + previous.length
            framing.append(Array(UnsafeBufferPointer(start: base + gap, count: chunk.offset - gap)))
            (base + end).update(from: base + chunk.offset, count: chunk.length)
            end += chunk.length
        }
        let ok = run(base + idat[0].offset, end - idat[0].offset)
        // Put back, the last chunk first (right, so again nothing is overwritten before it moves),
        // then its framing, which lies past every chunk still to move.
        for k in stride(from: idat.count - 1, through: 1, by: -1) {
            let chunk = idat[k]
            end -= chunk.length
            (base + chunk.offset).update(from: base + end, count: chunk.length)
            let gap = framing[k - 1]
            (base + chunk.offset - gap.count).update(from: gap, count: gap.count)
        }
        return ok
    }

    /// Unfilters every row from the tail of `base` into RGBA8 at its head (see the type's comment
    /// for why the two never collide). False on a filter byte above 4.
    static func unfilterRows(
        _ base: UnsafeMutablePointer<UInt8>, tail: Int, width w: Int, height h: Int, samples s: Int
    ) -> Bool {
        let n = s * w
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * n)
        defer { scratch.deallocate() }
        scratch.initialize(repeating: 0, count: 2 * n)
        var previous = scratch
        var current = scratch + n
        for y in 0..<h {
            let row = base + tail + y * (1 + n)
            guard unfilter(row[0], row + 1, previous, current, n, s) else { return false }
            widen(current, to: base + 4 * w * y, width: w, samples: s)
            swap(&previous, &current)
        }
        return true
    }

    /// Reverses PNG filter `f` (0 none, 1 sub, 2 up, 3 average, 4 Paeth; PNG spec §9) for one row
    /// of `n` bytes: `raw` the filtered bytes, `prior` the previous unfiltered row (zeros above the
    /// first), into `out`. Four-byte pixels go a pixel at a time in SIMD lanes; the others bytewise.
    static func unfilter(
        _ f: UInt8, _ raw: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>,
        _ n: Int, _ bpp: Int
    ) -> Bool {
        switch f {
        case 0:
            out.update(from: raw, count: n)
        case 1:
            out.update(from: raw, count: min(bpp, n))
            if bpp == 4 {
                unfilterPixels(raw, prior, out, n, SubPredictor.self)
            } else {
                for i in bpp..<max(bpp, n) { out[i] = raw[i] &+ out[i - bpp] }
            }
        case 2:
            for i in 0..<n { out[i] = raw[i] &+ prior[i] }
        case 3:
            for i in 0..<min(bpp, n) { out[i] = raw[i] &+ prior[i] >> 1 }
            if bpp == 4 {
                unfilterPixels(raw, prior, out, n, AveragePredictor.self)
            } else {
                for i in bpp..<max(bpp, n) { out[i] = raw[i] &+ UInt8((Int(out[i - bpp]) + Int(prior[i])) >> 1) }
            }
        case 4:
            for i in 0..<min(bpp, n) { out[i] = raw[i] &+ prior[i] }
            if bpp == 4 {
                unfilterPixels(raw, prior, out, n, PaethPredictor.self)
            } else {
                for i in bpp..<max(bpp, n) {
                    let (a, b, c) = (Int(out[i - bpp]), Int(prior[i]), Int(prior[i - bpp]))
                    let (pa, pb, pc) = (abs(b - c), abs(a - c), abs(a + b - 2 * c))
                    out[i] = raw[i] &+ UInt8(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c))
                }
            }
        default:
            return false
        }
        return true
    }

    /// One RGBA row from its second pixel on, through predictor `P` (a type, so the loop is
    /// specialised for it; a closure stayed a call per pixel).
    static func unfilterPixels<P: PixelPredictor>(
        _ raw: UnsafePointer<UInt8>, _ prior: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int,
        _: P.Type
    ) {
        @inline(__always) func load(_ p: UnsafePointer<UInt8>, _ k: Int) -> SIMD4<Int16> {
            SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(p + k).loadUnaligned(as: SIMD4<UInt8>.self))
        }
        var a = load(out, 0)
        var c = load(prior, 0)
        var k = 4
        while k + 4 <= n {
            let b = load(prior, k)
            let value = SIMD4<UInt8>(truncatingIfNeeded: load(raw, k) &+ P.predict(a, b, c))
            UnsafeMutableRawPointer(out + k).storeBytes(of: value, as: SIMD4<UInt8>.self)
            a = SIMD4<Int16>(truncatingIfNeeded: value)
            c = b
            k += 4
        }
    }

    /// One unfiltered row of `samples`-per-pixel bytes → RGBA8 (gray spread to R, G, B; alpha 255 when absent).
    static func widen(_ row: UnsafePointer<UInt8>, to out: UnsafeMutablePointer<UInt8>, width w: Int, samples s: Int) {
        switch s {
        case 4:
            out.update(from: row, count: 4 * w)
        case 3:
            for x in 0..<w {
                out[4 * x] = row[3 * x]
                out[4 * x + 1] = row[3 * x + 1]
                out[4 * x + 2] = row[3 * x + 2]
                out[4 * x + 3] = 255
            }
        case 2:
            for x in 0..<w {
                let g = row[2 * x]
                out[4 * x] = g
                out[4 * x + 1] = g
                out[4 * x + 2] = g
                out[4 * x + 3] = row[2 * x + 1]
            }
        default:
            for x in 0..<w {
                let g = row[x]
                out[4 * x] = g
                out[4 * x + 1] = g
                out[4 * x + 2] = g
                out[4 * x + 3] = 255
            }
        }
    }
}

/// A PNG predictor on one RGBA pixel: a the pixel to the left (already unfiltered), b above, c
/// above-left, each channel a 16-bit lane.
protocol PixelPredictor {
    static func predict(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16>
}

enum SubPredictor: PixelPredictor {
    @inline(__always) static func predict(_ a: SIMD4<Int16>, _: SIMD4<Int16>, _: SIMD4<Int16>) -> SIMD4<Int16> { a }
}

enum AveragePredictor: PixelPredictor {
    @inline(__always) static func predict(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _: SIMD4<Int16>) -> SIMD4<Int16> {
        (a &+ b) &>> 1
    }
}

/// Paeth (PNG spec §9.4): of a, b, c the one nearest p = a + b − c, ties in that order; branch-free.
enum PaethPredictor: PixelPredictor {
    @inline(__always) static func predict(_ a: SIMD4<Int16>, _ b: SIMD4<Int16>, _ c: SIMD4<Int16>) -> SIMD4<Int16> {
        let pa = magnitude(b &- c)
        let pb = magnitude(a &- c)
        let pc = magnitude(a &+ b &- c &- c)
        var predictor = c
        predictor.replace(with: b, where: pb .<= pc)
        predictor.replace(with: a, where: (pa .<= pb) .& (pa .<= pc))
        return predictor
    }

    @inline(__always) static func magnitude(_ d: SIMD4<Int16>) -> SIMD4<Int16> {
        let sign = d &>> 15
        return (d ^ sign) &- sign
    }
}
