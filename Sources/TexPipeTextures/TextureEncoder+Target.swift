internal import Foundation
public import TexPipeFormats
public import TexPipeMeasures
public import TexPipePixels

/// Quality targets (docs/gpu-textures.md "Quality targets"): per output, the setting that gives the
/// smallest file (or GPU size) meeting the target, searched over each candidate format's knob.
extension TextureEncoder {
    /// A targeted texture: the file, what was measured of its levels, the format and knob chosen,
    /// and whether they met the target (false: the best-measuring candidate).
    public struct Targeted: Sendable {
        public var bytes: [UInt8]
        public var quality: [LevelQuality]
        public var format: TextureSettings.Format
        public var gpuBytes: Int
        public var choice: TargetChoice
        public var met: Bool
        /// Candidate encodes made: at level 0 only, and of the whole texture.
        public var probes: (levelZero: Int, whole: Int)
    }

    /// One rung of a candidate's ladder: a format and its knob's value (qlevel; λ, 0 off; nil: none).
    struct Rung {
        var format: TextureSettings.Format
        var knob: TextureSettings.Knob?
        var value: Double?
    }

    /// What one encode of a rung gave.
    struct Probe {
        var bytes: [UInt8]
        var quality: [LevelQuality]
        var meets: Bool
        var score: Double
    }

    /// What a search over some of a target's candidates found: the smallest output that meets, the
    /// best-scoring one of those that do not, and the encodes made.
    struct Outcome {
        var winner: (rung: Rung, probe: Probe)?
        var best: (rung: Rung, probe: Probe)?
        var probes = (levelZero: 0, whole: 0)

        /// `found` weighed as the next candidate: it wins if it meets and is smaller (`size`) than the
        /// winner so far; when it does not meet, it is the best if it scores higher.
        mutating func offer(_ found: (rung: Rung, probe: Probe), _ size: (Rung, Probe) -> (Int, Int)) {
            if found.probe.meets {
                if winner == nil || size(found.rung, found.probe) < size(winner!.rung, winner!.probe) {
                    winner = found
                }
            } else if best == nil || found.probe.score > best!.probe.score {
                best = found
            }
        }
    }

    /// The `rdo` λ the search tries, largest (smallest output) first: 1024 down to 1/64 in steps
    /// of √2 (the powers of two exact, those between to three significant digits, so a chosen λ
    /// reads back as written), then 0 (off).
    static let lambdas: [Double] =
        (0...32).map { k in
            let v = pow(2, 10 - Double(k) / 2)
            guard k % 2 == 1 else { return v }
            let digits = pow(10, 2 - floor(log10(v)))
            return (v * digits).rounded() / digits
        } + [0]

    /// The candidates `settings` searches, each a ladder of rungs from the smallest output to the
    /// largest: qlevel 1…255, λ from 1024 to off, the ASTC block sizes from 8×8 to 4×4 (one ladder);
    /// a format without a knob is a ladder of one.
    static func ladders(_ settings: TextureSettings) -> [[Rung]] {
        var ladders: [[Rung]] = []
        var blocks: [Rung] = []
        for f in settings.searched {
            switch settings.knob(for: f) {
            case .qlevel?: ladders.append((1...255).map { Rung(format: f, knob: .qlevel, value: Double($0)) })
            case .lambda?: ladders.append(lambdas.map { Rung(format: f, knob: .lambda, value: $0) })
            case .block?:
                if blocks.isEmpty { ladders.append([]) }
                blocks.append(Rung(format: f, knob: .block, value: nil))
            case nil: ladders.append([Rung(format: f, knob: nil, value: nil)])
            }
        }
        if !blocks.isEmpty, let at = ladders.firstIndex(where: \.isEmpty) {
            ladders[at] = TextureSettings.astcSizes.compactMap { s in blocks.first { $0.format == s } }
        }
        return ladders
    }

    /// `layers` (one layer: a texture's mip chain, a cube map's levels; more: an array's layers)
    /// encoded at the smallest setting meeting `settings.target`. Each candidate's ladder is
    /// bisected on level 0 alone (the knobs are monotone enough), the rung found confirmed on the
    /// whole texture and, if the chain misses, the search goes on up the ladder on the whole
    /// texture; the smallest output that meets wins, a tie to the earlier candidate. When none
    /// meets, the candidate with the best score (`QualityTarget.score`) is written. A pure function
    /// of the images and the settings.
    public static func encode(
        targeted layers: [[Image]], array: Bool = false, _ settings: TextureSettings, container: TextureContainer,
        rows: any RowScheduler = SerialRows(), metrics: QualityMetrics = .none
    ) throws -> Targeted {
        guard let target = settings.target, let first = layers.first?.first else {
            throw CodecError(.textureWithoutLevels)
        }
        if let problem = settings.problems(in: container, hdrImage: first.isHDR).first {
            throw CodecError(.settings(problem))
        }
        let measures = target.measures(metrics)
        let whole = layers.count > 1 || layers[0].count > 1
        func gpu(_ f: TextureSettings.Format) -> Int {
            layers[0].reduce(0) { $0 + f.info.levelBytes($1.width, $1.height) } * layers.count
        }
        func size(_ r: Rung, _ p: Probe) -> (Int, Int) {
            target.minimize == .gpuBytes ? (gpu(r.format), p.bytes.count) : (p.bytes.count, 0)
        }
        var all = ladders(settings)
        // A list's format that stores no alpha is no candidate for an image with alpha below max
        // (alone, its encode says why).
        if all.count > 1, layers.contains(where: { translucentTexels($0[0]) > 0 }) {
            let held = all.filter { $0[0].format.info.channels != .rgb }
            if !held.isEmpty { all = held }
        }
        // The candidates `range` of `all`, in order: the smallest that meets (a tie to the earlier)
        // and the best-scoring of those that do not.
        func candidates(_ range: Range<Int>) throws -> Outcome {
            var out = Outcome()
            // Per format, what every rung shares: the blocks without rdo (λ), the block fits
            // (qlevel), the source's side of SSIM (shared by the formats).
            var memos: [TextureSettings.Format: BlockMemo] = [:]
            let sources = BlockMemo.Sources()
            func encoded(_ r: Rung, levelZero: Bool) throws -> Probe {
                let s = settings.candidate(r.format, knob: r.knob, value: r.value)
                let part = levelZero && whole ? layers.map { [$0[0]] } : layers
                if levelZero && whole { out.probes.levelZero += 1 } else { out.probes.whole += 1 }
                let memo = memos[r.format] ?? BlockMemo(sharing: sources)
                memos[r.format] = memo
                let (bytes, quality) =
                    array
                    ? try encode(
                        layers: part, array: true, cube: false, s, container: container, rows: rows, measure: true,
                        metrics: measures, memo: memo)
                    : try encode(
                        part[0], s, container: container, rows: rows, measure: true, metrics: measures, memo: memo)
                return Probe(
                    bytes: bytes, quality: quality, meets: target.meets(quality), score: target.score(quality))
            }
            for ladder in all[range] {
                // A candidate that cannot beat the winner is not encoded: its GPU size, or (neither
                // zstd nor BasisLZ) its file, is at least its smallest rung's GPU size.
                if let w = out.winner {
                    let floor = ladder[0].format
                    let exactSize = settings.supercompression == .none && !floor.info.codec.family.wholeFile
                    if target.minimize == .gpuBytes
                        ? gpu(floor) > gpu(w.rung.format)
                        : exactSize
                            && gpu(floor) > w.probe.bytes.count
                    {
                        continue
                    }
                }
                // A whole-file family's levels share one codebook: level 0 alone is another encode,
                // not a part of the chain's, so its ladder is searched on the whole texture at once.
                let split = whole && !ladder[0].format.info.codec.family.wholeFile
                out.offer(try search(ladder, whole: split) { r, zero in try encoded(r, levelZero: zero) }, size)
            }
            return out
        }
        // A list's candidates across the cores the engine lends (each band of candidates as above,
        // its own memos), merged in order by the same rule: the same choice in one band or many.
        var bands: [Result<Outcome, any Error>?] = Array(repeating: nil, count: all.count)
        bands.withUnsafeMutableBufferPointer { bands in
            rows.forEachBand(rows: all.count, pixelsPerRow: 1 << 30) { range in
                bands[range.lowerBound] = Result { try candidates(range) }
            }
        }
        var merged = Outcome()
        for band in bands {
            guard let band else { continue }
            let o = try band.get()
            merged.probes.levelZero += o.probes.levelZero
            merged.probes.whole += o.probes.whole
            if let w = o.winner { merged.offer(w, size) }
            if merged.winner == nil, let b = o.best { merged.offer(b, size) }
        }
        let (winner, best, probes) = (merged.winner, merged.best, merged.probes)
        let chosen = winner ?? best!
        let f = chosen.rung.format
        let choice: TargetChoice =
            switch chosen.rung.knob {
            case .qlevel?: TargetChoice(knob: "qlevel", value: String(Int(chosen.rung.value!)))
            case .lambda?: TargetChoice(knob: "lambda", value: ValueText.number(chosen.rung.value!))
            case .block?: TargetChoice(knob: "block", value: "\(f.info.block.width)x\(f.info.block.height)")
            case nil: TargetChoice(knob: nil, value: nil)
            }
        var bytes = chosen.probe.bytes
        if container == .ktx2 {
            bytes = try KTX2.adding(
                key: "texpipe.target", value: target.record(format: f.rawValue, choice, chosen.probe.quality),
                to: bytes, settings.candidate(f, knob: chosen.rung.knob, value: chosen.rung.value))
        }
        return Targeted(
            bytes: bytes, quality: chosen.probe.quality, format: f, gpuBytes: gpu(f), choice: choice,
            met: winner != nil, probes: probes)
    }

    /// The lowest rung of `ladder` whose whole texture meets the target: with `whole`, on level 0
    /// first (`encode(rung, true)`), then confirmed on the whole texture and, if that misses,
    /// searched on in the whole texture above it, its first steps by level 0's slope; without, on
    /// the whole texture at once (`encode(rung, false)`). When none meets: the top rung.
    static func search(
        _ ladder: [Rung], whole: Bool, _ encode: (Rung, Bool) throws -> Probe
    ) throws -> (rung: Rung, probe: Probe) {
        let n = ladder.count
        if n == 1 { return (ladder[0], try encode(ladder[0], false)) }
        var full: [Int: Probe] = [:]
        var zero: [Int: Double] = [:]
        // Level 0: the lowest rung that meets there (n: none).
        let first = try QualityTarget.lowestMeeting(n, above: -1) { k in
            let p = try encode(ladder[k], whole)
            if !whole { full[k] = p }
            zero[k] = p.score
            return (p.meets, p.score)
        }
        if first < n {
            let p = try full[first] ?? encode(ladder[first], false)
            full[first] = p
            if p.meets { return (ladder[first], p) }
            // The chain misses where level 0 met: on up the ladder, on the whole texture, the first
            // steps by level 0's slope below the rung it met at.
            let below = zero.keys.filter { $0 < first }.max()
            let slope = below.map { (zero[first]! - zero[$0]!) / Double(first - $0) }
            let next = try QualityTarget.lowestMeeting(n, above: first, startScore: p.score, slope: slope) { k in
                let q = try full[k] ?? encode(ladder[k], false)
                full[k] = q
                return (q.meets, q.score)
            }
            if next < n { return (ladder[next], full[next]!) }
        }
        let top = try full[n - 1] ?? encode(ladder[n - 1], false)
        return (ladder[n - 1], top)
    }
}
