/// What ETC1S's blocks cost once BasisLZ codes them (`ETC1S+BasisLZ.swift`), and the choices that
/// make them cheaper: the endpoint codebook's order, and blocks that take a neighbour's endpoint or
/// a recent selector when that costs little error.
extension ETC1S {
    /// The selector codebook reordered so that the XOR deltas BasisLZ codes it with (each entry's
    /// four bytes against the previous entry's, Huffman coded) are mostly zero bytes: a chain from
    /// entry 0, each next the unplaced entry whose delta from the last has the fewest non-zero bytes,
    /// then the fewest bits set (the earlier on ties; among the first 2,048 unplaced, so a codebook
    /// of 16,128 costs 33 M comparisons, not 130 M). The blocks' indices are renumbered to match:
    /// what the slices cost does not change (their codes depend on how often each index is used,
    /// not on its number).
    static func reorderSelectors(_ codebook: inout [UInt32], _ index: inout [UInt16]) {
        let n = codebook.count
        guard n > 2 else { return }
        @inline(__always) func cost(_ x: UInt32) -> Int {
            // A byte's top bit set by a non-zero byte: (b & 0x7F) + 0x7F carries into it, or b has it.
            let nonZero = ((x & 0x7F7F_7F7F) &+ 0x7F7F_7F7F | x) & 0x8080_8080
            return nonZero.nonzeroBitCount << 6 + x.nonzeroBitCount
        }
        var unplaced = Array(1..<n)
        var order = [0]
        order.reserveCapacity(n)
        while !unplaced.isEmpty {
            let last = codebook[order[order.count - 1]]
            var best = 0
            var bestCost = Int.max
            for (k, candidate) in unplaced.prefix(2048).enumerated() {
                let c = cost(codebook[candidate] ^ last)
                if c < bestCost { (best, bestCost) = (k, c) }
            }
            order.append(unplaced[best])
            unplaced.remove(at: best)
        }
        renumber(&codebook, &index, as: order)
    }

    /// `codebook` without the entries no block's `index` names, the indices renumbered to match
    /// (the kept entries in their order): fewer bytes, the same texels.
    static func dropUnused<Entry>(_ codebook: inout [Entry], _ index: inout [UInt16]) {
        var used = [Bool](repeating: false, count: codebook.count)
        for i in index { used[Int(i)] = true }
        guard used.contains(false) else { return }
        renumber(&codebook, &index, as: codebook.indices.filter { used[$0] })
    }

    /// Blocks naming an entry equal to an earlier one renamed to that one: the same texels, and
    /// the duplicate left unused for `dropUnused` (clusters a few steps apart in float often fit
    /// the same 5-bit colour and table: a 2048² texture's 1,200 endpoints held 879 different ones).
    static func mergeDuplicates<Entry: Hashable>(_ codebook: [Entry], _ index: inout [UInt16]) {
        var first: [Entry: UInt16] = [:]
        first.reserveCapacity(codebook.count)
        var target = [UInt16](repeating: 0, count: codebook.count)
        var merged = false
        for (i, entry) in codebook.enumerated() {
            let kept = first[entry, default: UInt16(i)]
            if kept == UInt16(i) { first[entry] = kept } else { merged = true }
            target[i] = kept
        }
        guard merged else { return }
        for b in index.indices { index[b] = target[Int(index[b])] }
    }

    /// `codebook`'s entries in `order` (old indices, each at most once; one not listed is dropped),
    /// every block's `index` renumbered to match: the codebook reorders' and `dropUnused`'s last step.
    static func renumber<Entry>(_ codebook: inout [Entry], _ index: inout [UInt16], as order: [Int]) {
        var new = [UInt16](repeating: 0, count: codebook.count)
        for (position, old) in order.enumerated() { new[old] = UInt16(position) }
        codebook = order.map { codebook[$0] }
        for b in index.indices { index[b] = new[Int(index[b])] }
    }

    /// The endpoint codebook reordered so that the index deltas BasisLZ codes are small: a block
    /// whose endpoint is not its left, upper or upper-left neighbour's is coded as the difference
    /// from the previous block's index. The pairs of endpoints met that way are counted, and the
    /// order is a chain: from the most used endpoint, each next is the unplaced one met most often
    /// beside the last (the lower index on ties), or, when none is, the next unplaced in order of
    /// colour. The blocks' indices are renumbered to match.
    static func reorder(_ endpoints: inout [Endpoint], _ index: inout [UInt16], _ slices: [Slice]) {
        let n = endpoints.count
        guard n > 2 else { return }
        var pairs: [UInt32: Int] = [:]
        var uses = [Int](repeating: 0, count: n)
        var start = 0
        for s in slices {
            let bw = s.blocksX
            var previous = 0
            for y in 0..<s.blocksY {
                for x in 0..<bw {
                    let b = start + y * bw + x
                    let e = Int(index[b])
                    uses[e] += 1
                    let predicted =
                        (x > 0 && Int(index[b - 1]) == e) || (y > 0 && Int(index[b - bw]) == e)
                        || (x > 0 && y > 0 && Int(index[b - bw - 1]) == e)
                    if !predicted && e != previous {
                        pairs[UInt32(min(e, previous)) << 16 | UInt32(max(e, previous)), default: 0] += 1
                    }
                    previous = e
                }
            }
            start += s.blockCount
        }
        // Each endpoint's partners, the most met first.
        var partners = [[(count: Int, other: Int)]](repeating: [], count: n)
        for (key, count) in pairs {
            let a = Int(key >> 16)
            let b = Int(key & 0xFFFF)
            partners[a].append((count, b))
            partners[b].append((count, a))
        }
        for k in 0..<n { partners[k].sort { $0.count > $1.count || ($0.count == $1.count && $0.other < $1.other) } }
        // The fallback: a list in order of colour, placed endpoints unlinked.
        let byColour = (0..<n).sorted { a, b in
            let ea = endpoints[a]
            let eb = endpoints[b]
            let ka = (Int(ea.r) + Int(ea.g) + Int(ea.b), ea.inten, a)
            let kb = (Int(eb.r) + Int(eb.g) + Int(eb.b), eb.inten, b)
            return ka < kb
        }
        var next = [Int](repeating: -1, count: n)
        var prev = [Int](repeating: -1, count: n)
        for (p, k) in byColour.enumerated() {
            if p > 0 { prev[k] = byColour[p - 1] }
            if p + 1 < n { next[k] = byColour[p + 1] }
        }
        var head = byColour[0]
        var placed = [Bool](repeating: false, count: n)
        var order: [Int] = []
        order.reserveCapacity(n)
        var after = -1
        func place(_ k: Int) {
            placed[k] = true
            order.append(k)
            if prev[k] >= 0 { next[prev[k]] = next[k] } else { head = next[k] }
            if next[k] >= 0 { prev[next[k]] = prev[k] }
            after = next[k] >= 0 ? next[k] : head
        }
        var first = 0
        for k in 1..<n where uses[k] > uses[first] { first = k }
        place(first)
        while order.count < n {
            let last = order[order.count - 1]
            if let p = partners[last].first(where: { !placed[$0.other] }) {
                place(p.other)
            } else {
                place(after >= 0 ? after : head)
            }
        }
        renumber(&endpoints, &index, as: order)
    }

    /// Rate against error, in the decoder's order (each slice's blocks row by row): a block whose
    /// endpoint is none of its left, upper and upper-left neighbours' takes the one of theirs that
    /// costs least if its error grows by less than `lambda` times the bits a coded delta costs;
    /// and a block whose selector is not in the decoder's history (`BasisLZ.History`, mirrored)
    /// takes the best of the history's first `depth` entries if its error grows by less than
    /// `lambda` times the bits a raw index costs over a history hit. `lambda` is in squared error
    /// (the sum over a block's 48 samples) per bit. A selector that more than one block in 16 uses
    /// is never traded: its Huffman code is shorter than a history reference, so the trade saves
    /// nothing — and on an image of many equal blocks (a mask, a flat field) it would cascade, each
    /// block taking the history entry the one before took, the right selector never entering it.
    static func economise(
        _ t: UnsafePointer<UInt8>, _ slices: [Slice], endpoints: [Endpoint], selectors: [UInt32],
        blockEndpoint: inout [UInt16], blockSelector: inout [UInt16], depth: Int, lambda: Float
    ) {
        let palettes = endpoints.map(Palette.init)
        let selections = selectors.map(Selection.init)
        // Estimates: a delta after the codebook's ordering, and a raw index against a history hit.
        let deltaBits: Float = 5
        var rawBits: Float = 1
        while 1 << Int(rawBits) < selectors.count { rawBits += 1 }
        let savedBySelector = max(0, rawBits - 4)
        var uses = [Int](repeating: 0, count: selectors.count)
        for sel in blockSelector { uses[Int(sel)] += 1 }
        let common = uses.map { $0 * 16 > blockSelector.count }
        var start = 0
        for s in slices {
            let bw = s.blocksX
            var history = BasisLZ.History(BasisLZ.historySize)
            for y in 0..<s.blocksY {
                for x in 0..<bw {
                    let b = start + y * bw + x
                    let texels = Texels(t + b * 48)
                    var e = Int(blockEndpoint[b])
                    var sel = Int(blockSelector[b])
                    let left = x > 0 ? Int(blockEndpoint[b - 1]) : -1
                    let up = y > 0 ? Int(blockEndpoint[b - bw]) : -1
                    let upLeft = x > 0 && y > 0 ? Int(blockEndpoint[b - bw - 1]) : -1
                    if e != left && e != up && e != upLeft {
                        var bestCost = error(texels, palettes[e], selections[sel]) + lambda * deltaBits
                        for c in [left, up, upLeft] where c >= 0 {
                            let cost = error(texels, palettes[c], selections[sel])
                            if cost < bestCost { (e, bestCost) = (c, cost) }
                        }
                        blockEndpoint[b] = UInt16(e)
                    }
                    if let h = history.values.firstIndex(of: sel) {
                        history.use(h)
                        continue
                    }
                    if common[sel] {
                        history.add(sel)
                        continue
                    }
                    let costs = Costs(texels, palettes[e])
                    var bestCost = costs.error(selections[sel]) + lambda * savedBySelector
                    var taken = -1
                    for h in 0..<min(depth, history.values.count) {
                        let cost = costs.error(selections[history.values[h]])
                        if cost < bestCost { (taken, bestCost) = (h, cost) }
                    }
                    if taken >= 0 {
                        sel = history.values[taken]
                        blockSelector[b] = UInt16(sel)
                        history.use(taken)
                    } else {
                        history.add(sel)
                    }
                }
            }
            start += s.blockCount
        }
    }
}
