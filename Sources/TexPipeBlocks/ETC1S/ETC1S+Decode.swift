internal import TexPipeFormats

/// BasisLZ/ETC1S read back (KTX 2.0 specification's bitstream appendix), written apart from the
/// encoder: the global data's codebooks and tables, then a slice's blocks as endpoint and selector
/// indices, then texels. `inspect` previews and measures ETC1S files with it; every read is
/// bounds-checked, so a hostile file is a one-line error.
public enum ETC1SDecoder {
    /// A file's global data, decoded.
    public struct Global: Sendable {
        /// (r, g, b) 5-bit and the intensity table, per endpoint.
        public var endpoints: [(r: UInt8, g: UInt8, b: UInt8, inten: UInt8)]
        /// 16 selectors (0…3) per entry, row-major.
        public var selectors: [[UInt8]]
        var pred: Table
        var delta: Table
        var selector: Table
        var run: Table
        var historySize: Int
    }

    static func fail(_ what: String) -> CodecError { CodecError(.basisLZ("BasisLZ: \(what)")) }

    /// The global data's sections (`endpointsData`, `selectorsData`, `tablesData`).
    public static func global(
        endpointCount: Int, selectorCount: Int, endpoints: ArraySlice<UInt8>, selectors: ArraySlice<UInt8>,
        tables: ArraySlice<UInt8>
    ) throws -> Global {
        guard endpointCount > 0, selectorCount > 0 else { throw fail("empty codebook") }
        var r = BitReader(endpoints)
        let color = [try Table(&r), try Table(&r), try Table(&r)]
        let inten = try Table(&r)
        let grey = try r.bits(1) == 1
        var prevInten = 0
        var prev = [16, 16, 16]
        var eps: [(r: UInt8, g: UInt8, b: UInt8, inten: UInt8)] = []
        eps.reserveCapacity(endpointCount)
        for _ in 0..<endpointCount {
            prevInten = (prevInten + (try inten.decode(&r))) & 7
            for c in 0..<(grey ? 1 : 3) {
                let model = prev[c] < 10 ? 0 : prev[c] < 22 ? 1 : 2
                prev[c] = (prev[c] + (try color[model].decode(&r))) & 31
            }
            if grey { (prev[1], prev[2]) = (prev[0], prev[0]) }
            eps.append((UInt8(prev[0]), UInt8(prev[1]), UInt8(prev[2]), UInt8(prevInten)))
        }
        var s = BitReader(selectors)
        guard try s.bits(2) == 0 else { throw fail("selector codebook's reserved bits are set") }
        let raw = try s.bits(1) == 1
        var rows = [[UInt8]](repeating: [0, 0, 0, 0], count: selectorCount)
        if raw {
            for i in 0..<selectorCount { for j in 0..<4 { rows[i][j] = UInt8(try s.bits(8)) } }
        } else {
            let deltas = try Table(&s)
            for j in 0..<4 { rows[0][j] = UInt8(try s.bits(8)) }
            for i in 1..<selectorCount {
                for j in 0..<4 { rows[i][j] = UInt8(truncatingIfNeeded: try deltas.decode(&s)) ^ rows[i - 1][j] }
            }
        }
        let sels = rows.map { row in (0..<16).map { t in (row[t / 4] >> (2 * UInt8(t % 4))) & 3 } }
        var t = BitReader(tables)
        let pred = try Table(&t)
        let delta = try Table(&t)
        let selector = try Table(&t)
        let run = try Table(&t)
        let historySize = try t.bits(13)
        guard historySize <= 64 else { throw fail("selector history of \(historySize) entries (64 at most)") }
        return Global(
            endpoints: eps, selectors: sels, pred: pred, delta: delta, selector: selector, run: run,
            historySize: historySize)
    }

    /// A slice's blocks: (endpoint, selector) indices, row by row.
    public static func indices(_ slice: ArraySlice<UInt8>, blocksX bw: Int, blocksY bh: Int, _ g: Global) throws
        -> [(endpoint: Int, selector: Int)]
    {
        var r = BitReader(slice)
        let endpointCount = g.endpoints.count
        let selectorCount = g.selectors.count
        var out = [(endpoint: Int, selector: Int)](repeating: (0, 0), count: bw * bh)
        var above = [Int](repeating: 0, count: bw)
        var current = [Int](repeating: 0, count: bw)
        var pairBits = [Int](repeating: 0, count: (bw + 1) / 2)
        var bits = 0
        var prevSymbol = 0
        var repeats = 0
        var prevEndpoint = 0
        var history = [Int](repeating: 0, count: g.historySize)
        var rover = g.historySize / 2
        var run = 0
        for y in 0..<bh {
            for x in 0..<bw {
                if x % 2 == 0 {
                    if y % 2 == 0 {
                        if repeats > 0 {
                            repeats -= 1
                            bits = prevSymbol
                        } else {
                            let s = try g.pred.decode(&r)
                            if s == 256 {
                                repeats = try r.vlc(4) + 2
                                bits = prevSymbol
                            } else {
                                bits = s
                                prevSymbol = s
                            }
                        }
                        pairBits[x / 2] = bits >> 4
                    } else {
                        bits = pairBits[x / 2]
                    }
                }
                let p = bits & 3
                bits >>= 2
                var e: Int
                switch p {
                case 0:
                    guard x > 0 else { throw fail("block (0, \(y)) predicts from the left") }
                    e = prevEndpoint
                case 1:
                    guard y > 0 else { throw fail("block (\(x), 0) predicts from above") }
                    e = above[x]
                case 2:
                    guard x > 0 && y > 0 else { throw fail("block (\(x), \(y)) predicts from the upper left") }
                    e = above[x - 1]
                default:
                    e = prevEndpoint + (try g.delta.decode(&r))
                    if e >= endpointCount { e -= endpointCount }
                }
                guard e < endpointCount else { throw fail("endpoint index \(e) of \(endpointCount)") }
                current[x] = e
                prevEndpoint = e
                var s: Int
                if run > 0 {
                    run -= 1
                    s = selectorCount
                } else {
                    s = try g.selector.decode(&r)
                    if s == selectorCount + g.historySize {
                        let n = try g.run.decode(&r)
                        run = (n == 63 ? try r.vlc(7) : n) + 3 - 1
                        s = selectorCount
                    }
                }
                if s >= selectorCount {
                    let h = s - selectorCount
                    guard h < g.historySize else { throw fail("selector history index \(h) of \(g.historySize)") }
                    s = history[h]
                    if h != 0 { history.swapAt(h / 2, h) }
                } else if g.historySize > 0 {
                    history[rover] = s
                    rover += 1
                    if rover == g.historySize { rover = g.historySize / 2 }
                }
                guard s < selectorCount else { throw fail("selector index \(s) of \(selectorCount)") }
                out[y * bw + x] = (e, s)
            }
            swap(&above, &current)
        }
        return out
    }

    /// ETC1 modifiers by table, for selectors 0 (−b), 1 (−a), 2 (+a), 3 (+b).
    static let modifiers: [[Int]] = [
        [-8, -2, 2, 8], [-17, -5, 5, 17], [-29, -9, 9, 29], [-42, -13, 13, 42], [-60, -18, 18, 60],
        [-80, -24, 24, 80], [-106, -33, 33, 106], [-183, -47, 47, 183],
    ]

    /// RGBA8 texels (width × height) of an RGB slice and, when given, an alpha slice (whose green
    /// becomes alpha, as the transcoder does); alpha 255 without one.
    public static func texels(
        rgb: [(endpoint: Int, selector: Int)], alpha: [(endpoint: Int, selector: Int)]?, width: Int, height: Int,
        _ g: Global
    ) -> [UInt8] {
        let bw = (width + 3) / 4
        var out = [UInt8](repeating: 255, count: width * height * 4)
        // Block by block: the endpoint's colours once, then its texels (no allocation per texel).
        func expand(_ c: UInt8) -> Int { Int(c) << 3 | Int(c) >> 2 }
        func paint(_ blocks: [(endpoint: Int, selector: Int)], alpha: Bool) {
            out.withUnsafeMutableBufferPointer { o in
                for (b, (e, s)) in blocks.enumerated() {
                    let (x0, y0) = (b % bw * 4, b / bw * 4)
                    let ep = g.endpoints[e]
                    let mods = modifiers[Int(ep.inten)]
                    let sel = g.selectors[s]
                    let (r, gr, bl) = (expand(ep.r), expand(ep.g), expand(ep.b))
                    for y in y0..<min(y0 + 4, height) {
                        for x in x0..<min(x0 + 4, width) {
                            let m = mods[Int(sel[(y - y0) * 4 + x - x0])]
                            let i = (y * width + x) * 4
                            if alpha {
                                o[i + 3] = UInt8(max(0, min(255, gr + m)))
                            } else {
                                o[i] = UInt8(max(0, min(255, r + m)))
                                o[i + 1] = UInt8(max(0, min(255, gr + m)))
                                o[i + 2] = UInt8(max(0, min(255, bl + m)))
                            }
                        }
                    }
                }
            }
        }
        paint(rgb, alpha: false)
        if let alpha { paint(alpha, alpha: true) }
        return out
    }

    /// A canonical Huffman decoding table read as BasisLZ stores it.
    struct Table {
        /// (code length, code) → symbol, by length.
        var symbolsByLength: [[Int]]
        var firstCode: [Int]
        var maxLength: Int

        init(lengths: [Int]) throws {
            maxLength = lengths.max() ?? 0
            guard maxLength > 0 else { throw ETC1SDecoder.fail("a Huffman table with no codes") }
            symbolsByLength = [[Int]](repeating: [], count: maxLength + 1)
            for (s, l) in lengths.enumerated() where l > 0 { symbolsByLength[l].append(s) }
            firstCode = [Int](repeating: 0, count: maxLength + 2)
            var code = 0
            var kraft = 0
            for l in 1...maxLength {
                firstCode[l] = code
                code = (code + symbolsByLength[l].count) << 1
                kraft += symbolsByLength[l].count << (maxLength - l)
            }
            guard kraft <= 1 << maxLength else { throw ETC1SDecoder.fail("a Huffman table with too many codes") }
        }

        init(_ r: inout BitReader) throws {
            let used = try r.bits(14)
            guard used >= 1 else { throw ETC1SDecoder.fail("a Huffman table of no symbols") }
            let sent = try r.bits(5)
            guard (1...21).contains(sent) else { throw ETC1SDecoder.fail("\(sent) code length codes") }
            var codeLengths = [Int](repeating: 0, count: 21)
            let order = [17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16]
            for k in 0..<sent { codeLengths[order[k]] = try r.bits(3) }
            let lengthCode = try Table(lengths: codeLengths)
            var lengths: [Int] = []
            lengths.reserveCapacity(used)
            while lengths.count < used {
                let s = try lengthCode.decode(&r)
                switch s {
                case 0...16: lengths.append(s)
                case 17: lengths += [Int](repeating: 0, count: try r.bits(3) + 3)
                case 18: lengths += [Int](repeating: 0, count: try r.bits(7) + 11)
                default:
                    guard let last = lengths.last, last > 0 else {
                        throw ETC1SDecoder.fail("a repeat with no previous code length")
                    }
                    lengths += [Int](repeating: last, count: s == 19 ? try r.bits(2) + 3 : try r.bits(7) + 7)
                }
            }
            guard lengths.count == used else { throw ETC1SDecoder.fail("code lengths overrun the table") }
            try self.init(lengths: lengths)
        }

        /// One symbol: bits read one at a time, most significant code bit first.
        func decode(_ r: inout BitReader) throws -> Int {
            var code = 0
            for l in 1...maxLength {
                code = code << 1 | (try r.bits(1))
                let k = code - firstCode[l]
                if k >= 0 && k < symbolsByLength[l].count { return symbolsByLength[l][k] }
            }
            throw ETC1SDecoder.fail("an invalid Huffman code")
        }
    }

    /// Bits least significant first, never past the slice.
    struct BitReader {
        var bytes: ArraySlice<UInt8>
        var position = 0

        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        mutating func bits(_ n: Int) throws -> Int {
            var v = 0
            for i in 0..<n {
                let byte = bytes.startIndex + (position >> 3)
                guard byte < bytes.endIndex else { throw ETC1SDecoder.fail("data ends early") }
                v |= Int((bytes[byte] >> UInt8(position & 7)) & 1) << i
                position += 1
            }
            return v
        }

        mutating func vlc(_ chunk: Int) throws -> Int {
            var v = 0
            var shift = 0
            while true {
                let s = try bits(chunk + 1)
                v |= (s & ((1 << chunk) - 1)) << shift
                shift += chunk
                if s >> chunk == 0 { return v }
                guard shift < 32 else { throw ETC1SDecoder.fail("a run length past 32 bits") }
            }
        }
    }
}
