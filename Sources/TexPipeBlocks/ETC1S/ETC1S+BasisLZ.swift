/// BasisLZ, the lossless coding of ETC1S codebooks and block indices (KTX 2.0 specification,
/// "BasisLZ/ETC1S Bitstream Specification"): the endpoint codebook DPCM-coded with four Huffman
/// tables, the selector codebook as XOR deltas (or raw), four Huffman tables for the slices, and
/// each slice's blocks as endpoint predictions (left, above, above-left or a coded delta; one
/// symbol per 2 × 2 blocks, runs of repeats), then selector indices through a 64-entry history
/// buffer with runs. Bits are written least significant first; Huffman codes are canonical, as
/// Deflate's.
enum BasisLZ {
    /// The global data's sections and each slice's bytes, in the order of `ETC1S.Encoded`'s slices.
    struct Coded {
        var endpointCount: Int
        var selectorCount: Int
        var endpoints: [UInt8]
        var selectors: [UInt8]
        var tables: [UInt8]
        var slices: [[UInt8]]
    }

    static let historySize = 64
    static let predRepeatSymbol = 256
    static let runSymbols = 64

    static func code(_ e: ETC1S.Encoded, blocksX: [Int]) -> Coded {
        let endpoints = codeEndpoints(e.endpoints)
        let selectors = codeSelectors(e.selectors)
        // Pass one counts the slices' symbols, pass two writes them with the tables built from the counts.
        var counts = SliceSymbols(endpointCount: e.endpoints.count, selectorCount: e.selectors.count)
        for k in 0..<blocksX.count {
            var sink = BitWriter()
            walk(e.endpointIndices[k], e.selectorIndices[k], blocksX: blocksX[k], &counts, write: nil, &sink)
        }
        let models = counts.models()
        var tables = BitWriter()
        for m in [models.pred, models.delta, models.selector, models.run] { m.writeTable(&tables) }
        tables.put(UInt32(historySize), 13)
        var slices: [[UInt8]] = []
        for k in 0..<blocksX.count {
            var w = BitWriter()
            walk(e.endpointIndices[k], e.selectorIndices[k], blocksX: blocksX[k], &counts, write: models, &w)
            slices.append(w.finish())
        }
        return Coded(
            endpointCount: e.endpoints.count, selectorCount: e.selectors.count, endpoints: endpoints,
            selectors: selectors, tables: tables.finish(), slices: slices)
    }

    /// The endpoint codebook: intensity deltas and colour deltas (by the previous value's range:
    /// 0…9, 10…21, 22…31), grey when every endpoint is.
    static func codeEndpoints(_ endpoints: [ETC1S.Endpoint]) -> [UInt8] {
        let grey = endpoints.allSatisfy { $0.r == $0.g && $0.g == $0.b }
        @inline(__always) func model(_ prev: Int) -> Int { prev <= 9 ? 0 : prev <= 21 ? 1 : 2 }
        var colorCounts = [[Int]](repeating: [Int](repeating: 0, count: 32), count: 3)
        var intenCounts = [Int](repeating: 0, count: 8)
        func forEachDelta(_ body: (_ inten: Int, _ deltas: [(model: Int, delta: Int)]) -> Void) {
            var prevInten = 0
            var prev = [16, 16, 16]
            for e in endpoints {
                let inten = (Int(e.inten) - prevInten) & 7
                prevInten = Int(e.inten)
                let values = grey ? [Int(e.r)] : [Int(e.r), Int(e.g), Int(e.b)]
                var deltas: [(Int, Int)] = []
                for (c, v) in values.enumerated() {
                    deltas.append((model(prev[c]), (v - prev[c]) & 31))
                    prev[c] = v
                }
                body(inten, deltas)
            }
        }
        forEachDelta { inten, deltas in
            intenCounts[inten] += 1
            for d in deltas { colorCounts[d.model][d.delta] += 1 }
        }
        let colorModels = colorCounts.map { Huffman(counts: $0) }
        let intenModel = Huffman(counts: intenCounts)
        var w = BitWriter()
        for m in colorModels { m.writeTable(&w) }
        intenModel.writeTable(&w)
        w.put(grey ? 1 : 0, 1)
        forEachDelta { inten, deltas in
            intenModel.put(inten, &w)
            for d in deltas { colorModels[d.model].put(d.delta, &w) }
        }
        return w.finish()
    }

    /// The selector codebook, four bytes an entry (row y's byte holds texel x at bits 2x): XOR
    /// deltas from the previous entry, Huffman coded, or raw when that is no larger.
    static func codeSelectors(_ selectors: [UInt32]) -> [UInt8] {
        var counts = [Int](repeating: 0, count: 256)
        for i in 1..<max(1, selectors.count) {
            let x = selectors[i] ^ selectors[i - 1]
            for j in 0..<4 { counts[Int((x >> (8 * UInt32(j))) & 0xFF)] += 1 }
        }
        let model = Huffman(counts: counts)
        var coded = BitWriter()
        coded.put(0, 2)
        coded.put(0, 1)
        model.writeTable(&coded)
        for j in 0..<4 { coded.put((selectors[0] >> (8 * UInt32(j))) & 0xFF, 8) }
        for i in 1..<max(1, selectors.count) {
            let x = selectors[i] ^ selectors[i - 1]
            for j in 0..<4 { model.put(Int((x >> (8 * UInt32(j))) & 0xFF), &coded) }
        }
        let compressed = coded.finish()
        guard compressed.count >= selectors.count * 4 + 1 else { return compressed }
        var raw = BitWriter()
        raw.put(0, 2)
        raw.put(1, 1)
        for s in selectors { for j in 0..<4 { raw.put((s >> (8 * UInt32(j))) & 0xFF, 8) } }
        return raw.finish()
    }

    /// The four slice models' symbol counts.
    struct SliceSymbols {
        var pred = [Int](repeating: 0, count: 257)
        var delta: [Int]
        var selector: [Int]
        var run = [Int](repeating: 0, count: 64)

        init(endpointCount: Int, selectorCount: Int) {
            delta = [Int](repeating: 0, count: endpointCount)
            selector = [Int](repeating: 0, count: selectorCount + BasisLZ.historySize + 1)
        }

        func models() -> SliceModels {
            SliceModels(
                pred: Huffman(counts: pred), delta: Huffman(counts: delta), selector: Huffman(counts: selector),
                run: Huffman(counts: run))
        }
    }

    struct SliceModels {
        var pred: Huffman
        var delta: Huffman
        var selector: Huffman
        var run: Huffman
    }

    /// The decoder's approximate move-to-front selector history, mirrored.
    struct History {
        var values: [Int]
        var rover: Int

        init(_ n: Int) {
            values = [Int](repeating: 0, count: n)
            rover = n / 2
        }

        mutating func add(_ v: Int) {
            values[rover] = v
            rover += 1
            if rover == values.count { rover = values.count / 2 }
        }

        mutating func use(_ i: Int) {
            guard i != 0 else { return }
            values.swapAt(i / 2, i)
        }
    }

    /// One slice in the decoder's order: counts its symbols (`write` nil) or writes them.
    static func walk(
        _ endpointIndex: [UInt16], _ selectorIndex: [UInt16], blocksX bw: Int, _ counts: inout SliceSymbols,
        write models: SliceModels?, _ w: inout BitWriter
    ) {
        let n = endpointIndex.count
        let bh = n / bw
        let endpointCount = counts.delta.count
        let selectorCount = counts.selector.count - historySize - 1
        // Each block's prediction: the left block's endpoint (0), the upper (1), the upper left (2)
        // or a delta from the previous block's (3).
        var preds = [UInt32](repeating: 3, count: n)
        for y in 0..<bh {
            for x in 0..<bw {
                let i = endpointIndex[y * bw + x]
                if x > 0 && endpointIndex[y * bw + x - 1] == i {
                    preds[y * bw + x] = 0
                } else if y > 0 && endpointIndex[(y - 1) * bw + x] == i {
                    preds[y * bw + x] = 1
                } else if x > 0 && y > 0 && endpointIndex[(y - 1) * bw + x - 1] == i {
                    preds[y * bw + x] = 2
                }
            }
        }
        // The 2 × 2 groups' symbols, in the order the decoder reads them.
        var groups: [Int] = []
        for y in stride(from: 0, to: bh, by: 2) {
            for x in stride(from: 0, to: bw, by: 2) {
                var s: UInt32 = 0
                for (k, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated()
                where x + dx < bw && y + dy < bh {
                    s |= preds[(y + dy) * bw + x + dx] << (2 * UInt32(k))
                }
                groups.append(Int(s))
            }
        }
        func symbol(_ which: WritableKeyPath<SliceSymbols, [Int]>, _ model: KeyPath<SliceModels, Huffman>, _ s: Int) {
            if let models { models[keyPath: model].put(s, &w) } else { counts[keyPath: which][s] += 1 }
        }
        var group = 0
        var prevGroupSymbol = 0
        var groupRepeat = 0
        var prevEndpoint = 0
        var history = History(historySize)
        var selectorRun = 0
        for y in 0..<bh {
            for x in 0..<bw {
                if x & 1 == 0 && y & 1 == 0 {
                    if groupRepeat > 0 {
                        groupRepeat -= 1
                    } else {
                        let s = groups[group]
                        var run = 0
                        if s == prevGroupSymbol {
                            while group + run < groups.count && groups[group + run] == s { run += 1 }
                        }
                        if run >= 3 {
                            symbol(\.pred, \.pred, predRepeatSymbol)
                            if models != nil { w.vlc(UInt32(run - 3), chunk: 4) }
                            groupRepeat = run - 1
                        } else {
                            symbol(\.pred, \.pred, s)
                            prevGroupSymbol = s
                        }
                    }
                    group += 1
                }
                let b = y * bw + x
                let e = Int(endpointIndex[b])
                if preds[b] == 3 { symbol(\.delta, \.delta, (e - prevEndpoint + endpointCount) % endpointCount) }
                prevEndpoint = e
                if selectorRun > 0 {
                    selectorRun -= 1
                    continue
                }
                let sel = Int(selectorIndex[b])
                var run = 0
                while b + run < n && Int(selectorIndex[b + run]) == history.values[0] { run += 1 }
                if run >= 3 {
                    symbol(\.selector, \.selector, selectorCount + historySize)
                    let r = run - 3
                    if r < runSymbols - 1 {
                        symbol(\.run, \.run, r)
                    } else {
                        symbol(\.run, \.run, runSymbols - 1)
                        if models != nil { w.vlc(UInt32(r), chunk: 7) }
                    }
                    selectorRun = run - 1
                } else if let h = history.values.firstIndex(of: sel) {
                    symbol(\.selector, \.selector, selectorCount + h)
                    history.use(h)
                } else {
                    symbol(\.selector, \.selector, sel)
                    history.add(sel)
                }
            }
        }
    }
}

/// Bits least significant first, as BasisLZ (and Deflate) pack them.
struct BitWriter {
    var bytes: [UInt8] = []
    var acc: UInt64 = 0
    var count = 0

    mutating func put(_ value: UInt32, _ bits: Int) {
        guard bits > 0 else { return }
        acc |= UInt64(value & UInt32(truncatingIfNeeded: (1 << UInt64(bits)) - 1)) << UInt64(count)
        count += bits
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: acc))
            acc >>= 8
            count -= 8
        }
    }

    /// `value` in chunks of `chunk` bits, each followed by a continuation bit (BasisLZ's VLC).
    mutating func vlc(_ value: UInt32, chunk: Int) {
        var v = value
        let mask = UInt32(1) << UInt32(chunk) - 1
        repeat {
            let part = v & mask
            v >>= UInt32(chunk)
            put(part | (v != 0 ? mask + 1 : 0), chunk + 1)
        } while v != 0
    }

    mutating func finish() -> [UInt8] {
        if count > 0 { bytes.append(UInt8(truncatingIfNeeded: acc)) }
        acc = 0
        count = 0
        return bytes
    }
}

/// A canonical Huffman code (RFC 1951 3.2.2) built from symbol counts, code lengths at most
/// `maxLength`; at least two symbols have a code, so every table is complete.
struct Huffman {
    var lengths: [UInt8]
    /// Each symbol's code, bit-reversed so that it is written least significant bit first.
    var codes: [UInt32]

    /// The order BasisLZ sends the code-length code's lengths in.
    static let lengthOrder = [17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16]

    init(counts: [Int], maxLength: Int = 16) {
        var c = counts
        var used = c.indices.filter { c[$0] > 0 }
        // Two symbols at least: a lone symbol gets a partner.
        for s in 0..<min(2, c.count) where used.count < 2 && c[s] == 0 {
            c[s] = 1
            used = c.indices.filter { c[$0] > 0 }
        }
        var lengths = Huffman.lengths(c, used)
        while (lengths.max() ?? 0) > maxLength {
            for s in used { c[s] = max(1, c[s] / 2) }
            lengths = Huffman.lengths(c, used)
        }
        self.lengths = lengths.map(UInt8.init)
        codes = Huffman.canonical(self.lengths)
    }

    /// Code lengths by Huffman's algorithm over the used symbols (two queues: the leaves sorted,
    /// the merged nodes made in increasing weight).
    static func lengths(_ counts: [Int], _ used: [Int]) -> [Int] {
        var out = [Int](repeating: 0, count: counts.count)
        if used.count == 1 {
            out[used[0]] = 1
            return out
        }
        let leaves = used.sorted { counts[$0] < counts[$1] || (counts[$0] == counts[$1] && $0 < $1) }
        // Nodes 0..<leaves.count are leaves; then internal nodes.
        var weight = leaves.map { counts[$0] }
        var parent = [Int](repeating: -1, count: 2 * leaves.count - 1)
        var leaf = 0
        var node = leaves.count
        var next = leaves.count
        func take() -> Int {
            if leaf < leaves.count && (node >= next || weight[leaf] <= weight[node]) {
                leaf += 1
                return leaf - 1
            }
            node += 1
            return node - 1
        }
        while next < 2 * leaves.count - 1 {
            let a = take()
            let b = take()
            weight.append(weight[a] + weight[b])
            parent[a] = next
            parent[b] = next
            next += 1
        }
        var depth = [Int](repeating: 0, count: 2 * leaves.count - 1)
        for i in stride(from: 2 * leaves.count - 3, through: 0, by: -1) { depth[i] = depth[parent[i]] + 1 }
        for (i, s) in leaves.enumerated() { out[s] = depth[i] }
        return out
    }

    static func canonical(_ lengths: [UInt8]) -> [UInt32] {
        let maxLength = Int(lengths.max() ?? 0)
        var count = [UInt32](repeating: 0, count: maxLength + 1)
        for l in lengths where l > 0 { count[Int(l)] += 1 }
        var next = [UInt32](repeating: 0, count: maxLength + 2)
        var code: UInt32 = 0
        for bits in 1...max(1, maxLength) {
            code = (code + (bits > 1 ? count[bits - 1] : 0)) << 1
            next[bits] = code
        }
        var codes = [UInt32](repeating: 0, count: lengths.count)
        for (s, l) in lengths.enumerated() where l > 0 {
            let c = next[Int(l)]
            next[Int(l)] += 1
            var r: UInt32 = 0
            for i in 0..<Int(l) where c & (1 << UInt32(i)) != 0 { r |= 1 << UInt32(Int(l) - 1 - i) }
            codes[s] = r
        }
        return codes
    }

    func put(_ symbol: Int, _ w: inout BitWriter) { w.put(codes[symbol], Int(lengths[symbol])) }

    /// The table as BasisLZ sends it: the used symbols' count, the code-length code's lengths,
    /// then the lengths run-length coded (17/18 zero runs, 19/20 repeats of the previous length).
    func writeTable(_ w: inout BitWriter) {
        let used = (lengths.lastIndex { $0 > 0 } ?? 0) + 1
        var ops: [(symbol: Int, extra: UInt32, bits: Int)] = []
        var i = 0
        while i < used {
            let l = Int(lengths[i])
            if l == 0 {
                var run = 0
                while i + run < used && lengths[i + run] == 0 && run < 138 { run += 1 }
                if run >= 11 {
                    ops.append((18, UInt32(run - 11), 7))
                } else if run >= 3 {
                    ops.append((17, UInt32(run - 3), 3))
                } else {
                    run = 1
                    ops.append((0, 0, 0))
                }
                i += run
                continue
            }
            ops.append((l, 0, 0))
            i += 1
            var run = 0
            while i + run < used && Int(lengths[i + run]) == l && run < 134 { run += 1 }
            if run >= 7 {
                ops.append((20, UInt32(run - 7), 7))
                i += run
            } else if run >= 3 {
                ops.append((19, UInt32(run - 3), 2))
                i += run
            }
        }
        var counts = [Int](repeating: 0, count: 21)
        for op in ops { counts[op.symbol] += 1 }
        let code = Huffman(counts: counts, maxLength: 7)
        let sent = (Huffman.lengthOrder.lastIndex { code.lengths[$0] > 0 } ?? 0) + 1
        w.put(UInt32(used), 14)
        w.put(UInt32(sent), 5)
        for k in 0..<sent { w.put(UInt32(code.lengths[Huffman.lengthOrder[k]]), 3) }
        for op in ops {
            code.put(op.symbol, &w)
            w.put(op.extra, op.bits)
        }
    }
}
