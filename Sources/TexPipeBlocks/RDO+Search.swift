extension RDO {
    /// Where a slice's search keeps its texels: a decoded block, a candidate's bytes, and the ring
    /// of the last `window` + 1 blocks' decoded texels (BC7, UASTC).
    struct Scratch {
        let texels: UnsafeMutablePointer<UInt8>
        let candidate: UnsafeMutablePointer<UInt8>
        let decodedRing: UnsafeMutablePointer<UInt8>
        let ring: Int
        /// The slice's first block.
        let first: Int

        init(texels: UnsafeMutablePointer<UInt8>, ring: Int, first: Int) {
            self.texels = texels
            candidate = texels + 64
            decodedRing = texels + 80
            (self.ring, self.first) = (ring, first)
        }

        /// Block i's decoded texels in the ring.
        func decoded(_ i: Int) -> UnsafeMutablePointer<UInt8> { decodedRing + 64 * ((i - first) % ring) }
    }

    /// What a block's search looked at already: each distance's part (RDO's own copies fill the
    /// window with them), and BC7 the endpoints already given indices.
    struct Seen {
        var parts: [UInt128]
        var headers = [UInt128](repeating: 0, count: 8)

        init(distances: Int) { parts = [UInt128](repeating: 0, count: distances) }
    }

    /// One block of the slice: where it is, its texels and which of them lie inside the level.
    struct SearchBlock {
        let i: Int
        let bw: Int
        let t: BC.Texels
        let inside: V16
        /// BC7's candidates are measured on the decoder's 16-bit channels.
        let bc7Block: BC7.Block?
        let t16: (H16, H16, H16, H16)
        let inside16: H16
        let dst: UnsafeMutablePointer<UInt8>
        let size: Int

        init(
            _ i: Int, _ src: UnsafeBufferPointer<UInt8>, bw: Int, width: Int, height: Int, refits: Bool,
            dst: UnsafeMutablePointer<UInt8>, size: Int
        ) {
            let (bx, by) = (i % bw, i / bw)
            let packed = BlockTexels.load(src, bx, by, width: width, height: height)
            t = BC.Texels(
                r: packed & 255, g: (packed &>> 8) & 255, b: (packed &>> 16) & 255, a: (packed &>> 24) & 255)
            inside = insideMask(bx, by, width, height)
            bc7Block = refits ? BC7.Block(t.r, t.g, t.b, t.a) : nil
            t16 =
                refits
                ? (
                    H16(truncatingIfNeeded: t.r), H16(truncatingIfNeeded: t.g), H16(truncatingIfNeeded: t.b),
                    H16(truncatingIfNeeded: t.a)
                ) : (H16(), H16(), H16(), H16())
            inside16 = refits ? H16(truncatingIfNeeded: inside) : H16()
            (self.i, self.bw, self.dst, self.size) = (i, bw, dst, size)
        }
    }

    /// One part of one block: the candidates RDO weighs for it — the blocks before, copied whole or
    /// spliced, BC7's endpoints reindexed and refitted — and the least costly (error + λ · bits) kept.
    struct PartSearch {
        let part: Part
        let block: SearchBlock
        let scratch: Scratch
        let lambda: Double
        /// The distance of the part's last match (a cheaper one to repeat).
        let previous: Int
        /// The part's offset in the block and its bytes.
        let offset: Int
        let n: Int
        let here: UnsafeMutablePointer<UInt8>
        let original: UInt128
        /// A whole block (BC7, UASTC), whose copies are measured from the decoded ring.
        let whole: Bool
        var best: (cost: Double, bytes: UInt128, error: SIMD2<Int32>, distance: Int)
        /// BC7: the least costly of the splices (own endpoints, another block's indices), whose
        /// endpoints are then fitted to those indices.
        var splice = (cost: Double.infinity, bytes: UInt128(0), other: UInt128(0), distance: 0)

        init(_ part: Part, _ block: SearchBlock, _ scratch: Scratch, lambda: Double, previous: Int, written: Written) {
            (self.part, self.block, self.scratch, self.lambda, self.previous) = (part, block, scratch, lambda, previous)
            (offset, n) =
                switch part {
                case .color(let o, _), .alpha(let o): (o, 8)
                case .bc7, .uastc: (0, 16)
                }
            whole =
                switch part {
                case .bc7, .uastc: true
                case .color, .alpha: false
                }
            here = block.dst + block.i * block.size + offset
            original = load(here, n)
            best = (0, original, SIMD2(), 0)
            let e0 = error(original)
            best = (
                cost: Double(e0.wrappedSum()) + lambda * Double(written.contains(original) ? 24 : 8 * n),
                bytes: original, error: e0, distance: 0
            )
        }

        /// The error of a part's bytes: (RGB, alpha) over the texels inside.
        @inline(__always) func error(_ v: UInt128) -> SIMD2<Int32> {
            let t = block.t
            switch part {
            case .color(_, let three):
                return colorError(UInt64(truncatingIfNeeded: v), t, block.inside, alwaysFour: !three, alpha: three)
            case .alpha:
                return SIMD2(0, alphaError(UInt64(truncatingIfNeeded: v), t.a, block.inside))
            case .bc7:
                return bc7Error(BC7.channels(v), block.t16, block.inside16)
            case .uastc:
                store(v, scratch.candidate, 16)
                UASTCDecoder.block(at: scratch.candidate, into: scratch.texels)
                return bc7Error(scratch.texels, t, block.inside)
            }
        }

        /// Keeps `v` if it costs less than the best so far; returns its cost (infinity where its
        /// rate alone costs more, not measured).
        @discardableResult @inline(__always)
        mutating func consider(_ v: UInt128, copying other: UInt128, distance d: Int, literals: Int = 0) -> Double {
            if case .color(_, false) = part, !fourColorOnly(UInt64(truncatingIfNeeded: v)) { return .infinity }
            // BC7's runs are measured (`bits`); a BC1 or BC3 half's candidate kinds have their
            // literals fixed (measuring them there cost a tenth more time for 0.2 %).
            guard
                let bits = n == 16
                    ? RDO.bits(v, other, n: n, repeated: d == previous)
                    : 8 * literals + (d == previous ? 8 : 24)
            else { return .infinity }
            // Its rate alone already costs more: no need to decode it.
            let rate = lambda * Double(bits)
            if rate >= best.cost { return .infinity }
            // A whole copy of a block before: its texels as decoded when it was written.
            let e =
                whole && v == other && d <= window
                ? bc7Error(scratch.decoded(block.i - d), block.t, block.inside) : error(v)
            let cost = Double(e.wrappedSum()) + rate
            if cost < best.cost { best = (cost, v, e, d) }
            return cost
        }

        /// A candidate of `literals` literal bytes at distance `d`, if its rate alone is below the
        /// best cost so far (else `consider` refuses it: not worth fitting).
        @inline(__always) func affordable(_ literals: Int, _ d: Int) -> Bool {
            lambda * Double(8 * literals + (d == previous ? 8 : 24)) < best.cost
        }

        /// Every block before within the distances, and what can be made of each; then BC7's best
        /// splice refitted.
        mutating func lookBack(_ distances: [Int], seen: inout Seen) {
            // For BC7: the bytes holding only indices, for a block of the original's mode.
            let mode = Int((original & 0xFF).trailingZeroBitCount)
            let indexBytes: Int =
                switch part {
                case .color: 4
                case .alpha: 6
                case .bc7: mode < 8 ? bc7IndexBytes[mode] : 0
                case .uastc: 0
                }
            let keep: UInt128 = indexBytes >= n ? 0 : (UInt128(1) &<< UInt128(8 * (n - indexBytes))) &- 1
            var looked = 0
            var headerCount = 0
            for d in distances where block.i - d >= scratch.first {
                let other = load(block.dst + (block.i - d) * block.size + offset, n)
                // Bytes already looked at nearer give the same candidates at a longer distance:
                // nothing better, unless this is the distance of the previous match (a cheaper match).
                if other == original { continue }
                if d != previous && (0..<looked).contains(where: { seen.parts[$0] == other }) { continue }
                seen.parts[looked] = other
                looked += 1
                consider(other, copying: other, distance: d)
                let sameMode: Bool =
                    switch part {
                    case .bc7: Int((other & 0xFF).trailingZeroBitCount) == mode
                    case .color, .alpha: true
                    case .uastc: false
                    }
                if indexBytes >= 4 && sameMode && affordable(n - indexBytes, d) {
                    spliced(other, d, keep: keep, literals: n - indexBytes)
                }
                if case .bc7 = part, d <= 2 || d == previous || d >= block.bw - 1 {
                    reindexed(other, d, seen: &seen, headerCount: &headerCount)
                }
                if case .color(_, let three) = part, affordable(4, d),
                    UInt64(truncatingIfNeeded: other) & 0xFFFF_FFFF != UInt64(truncatingIfNeeded: original)
                        & 0xFFFF_FFFF
                {
                    // The other block's endpoints, the best indices for them.
                    let ends = UInt64(truncatingIfNeeded: other) & 0xFFFF_FFFF
                    let c0 = Int(ends & 0xFFFF)
                    let c1 = Int(ends >> 16)
                    let palette = BC.colorPalette(c0, c1, four: !three || c0 > c1)
                    let (_, idx) = BC.colorFit(block.t, palette)
                    var selectors: UInt64 = 0
                    for x in 0..<16 { selectors |= UInt64(idx[x]) << UInt64(2 * x) }
                    consider(UInt128(ends | selectors << 32), copying: other, distance: d, literals: 4)
                }
            }
            if case .bc7 = part, splice.cost < .infinity, let b = block.bc7Block,
                let refitted = BC7.refit(splice.bytes, b)
            {
                consider(refitted, copying: splice.other, distance: splice.distance)
            }
        }

        /// `other`'s indices with endpoints fitted to them by least squares (colour and alpha
        /// blocks) or the block's own (BC7).
        mutating func spliced(_ other: UInt128, _ d: Int, keep: UInt128, literals: Int) {
            var fitted: UInt64?
            switch part {
            case .color: fitted = refitColor(block.t, UInt64(truncatingIfNeeded: other &>> 32))
            case .alpha: fitted = refitAlpha(block.t.a, UInt64(truncatingIfNeeded: other &>> 16))
            case .bc7, .uastc: fitted = nil
            }
            let ends: UInt128 = fitted.map { UInt128($0) } ?? original
            let spliced = (ends & keep) | (other & ~keep)
            let cost = consider(spliced, copying: other, distance: d, literals: literals)
            if cost < splice.cost { splice = (cost, spliced, other, d) }
        }

        /// BC7: `other`'s endpoints (every bit before its indices) with the best indices for them,
        /// unless a nearer block had the same.
        mutating func reindexed(_ other: UInt128, _ d: Int, seen: inout Seen, headerCount: inout Int) {
            let otherMode = Int((other & 0xFF).trailingZeroBitCount)
            guard otherMode < 8, affordable(16 - BC7.indexStart[otherMode] / 8, d) else { return }
            let header = other & ((UInt128(1) &<< UInt128(BC7.indexStart[otherMode])) &- 1)
            guard d == previous || !seen.headers[..<headerCount].contains(header),
                let re = BC7.reindexed(other, block.t)
            else { return }
            if headerCount < seen.headers.count {
                seen.headers[headerCount] = header
                headerCount += 1
            }
            if re != other { consider(re, copying: other, distance: d) }
        }

        /// The best candidate written in the block's place, remembered as written, and (a whole
        /// block) its decoded texels put in the ring.
        func keep(_ written: inout Written) {
            store(best.bytes, here, n)
            written.insert(best.bytes)
            guard whole else { return }
            let slot = scratch.decoded(block.i)
            if best.distance > 0 && best.distance <= window
                && best.bytes == load(block.dst + (block.i - best.distance) * block.size + offset, n)
            {
                slot.update(from: scratch.decoded(block.i - best.distance), count: 64)
            } else {
                store(best.bytes, scratch.candidate, 16)
                if case .uastc = part {
                    UASTCDecoder.block(at: scratch.candidate, into: slot)
                } else {
                    BC7.decodeBlock(scratch.candidate, into: slot)
                }
            }
        }
    }
}
