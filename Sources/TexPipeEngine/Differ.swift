internal import Dispatch
internal import Foundation
internal import Synchronization
internal import TexPipeCodecs
internal import TexPipeFormats
internal import TexPipeMeasures
internal import TexPipeParameters
public import TexPipePixels
internal import TexPipeStages
internal import TexPipeTextures

/// What a change did to the outputs (`texpipe diff BASE HEAD`, docs/command-line.md): the files of
/// two output folders paired by path — added, removed, changed (by bytes), unchanged — and for each
/// changed image or texture, every level, face, layer or slice of both decoded and HEAD measured
/// against BASE: PSNR, SSIM and FLIP (log-RGB PSNR and HDR-FLIP for HDR; the normal angle for
/// normal maps). The engine decides the schedule: one pair of files per worker at a time, and of
/// that pair one level and layer of each decoded at a time, so a worker holds at most one pair of
/// decoded images.
public enum Differ {
    /// `texpipe diff`'s findings: every output with its status, and the totals.
    public struct Report: Codable, Sendable {
        public var base: String
        public var head: String
        /// Changed (the most visible change first), added, removed, unchanged (each by path).
        public var outputs: [Output]
        public var folders: [Totals]
        public var total: Totals
    }

    public enum Status: String, Codable, Sendable { case added, removed, changed, unchanged }

    /// One output path in either folder.
    public struct Output: Codable, Sendable {
        public var path: String
        public var status: Status
        /// What the file is ("bc7 KTX2, 1024×1024, 11 levels", "PNG 512×512"), before and after.
        public var before: String?
        public var after: String?
        public var bytesBefore: Int?
        public var bytesAfter: Int?
        /// GPU memory: a texture's levels × layers in whole blocks; an image as uncompressed RGBA.
        public var gpuBytesBefore: Int?
        public var gpuBytesAfter: Int?
        /// Why the pixels were not compared or only partly ("sizes differ …: compared by bytes only").
        public var note: String?
        /// A quality target's choice that changed, from the files' `texpipe.target` records:
        /// "qlevel 96 → 140", or "etc1s qlevel 96 → uastc lambda 8" when the format changed too.
        public var choice: String?
        /// A file that could not be decoded, and why ("HEAD: …").
        public var error: String?
        public var hdr: Bool?
        public var normalMap: Bool?
        /// HEAD against BASE per level and layer (face, slice).
        public var parts: [Part]
        /// The worst of `parts`: lowest PSNR and SSIM, highest FLIP and normal angles.
        public var worst: Part?
        /// Index of this output's pictures in the HTML page (`DIR/img/<picture>/…`).
        public var picture: Int?
        /// The slices pictured, when not every layer is (a volume's `TextureFile.picks`).
        public var picturedLayers: [Int]?
    }

    /// HEAD against BASE on one level's layer (face, slice).
    public struct Part: Codable, Sendable, Equatable {
        public var level: Int
        public var layer: Int
        public var width: Int
        public var height: Int
        /// Over the colour channels both store; log-RGB PSNR for HDR. 99 dB stands for identical.
        public var psnr: Double
        public var psnrAlpha: Double?
        public var ssim: Double?
        public var ssimAlpha: Double?
        /// Mean LDR-FLIP (HDR-FLIP for HDR).
        public var flip: Double?
        public var normalMean: Double?
        public var normalP99: Double?

        init(level: Int, layer: Int, width: Int, height: Int, _ q: LevelQuality) {
            (self.level, self.layer, self.width, self.height) = (level, layer, width, height)
            (psnr, psnrAlpha, ssim, ssimAlpha, flip) = (q.rgb, q.alpha, q.ssim, q.ssimAlpha, q.flip)
            (normalMean, normalP99) = (q.normalMean, q.normalP99)
        }

        /// The measures as the encoder's gates record them.
        var quality: LevelQuality {
            LevelQuality(
                rgb: psnr, alpha: psnrAlpha, ssim: ssim, ssimAlpha: ssimAlpha, flip: flip, normalMean: normalMean,
                normalP99: normalP99)
        }

        /// The worse of each measure (this part's level, layer and size).
        func worse(_ o: Part) -> Part {
            Part(level: level, layer: layer, width: width, height: height, quality.worse(o.quality))
        }
    }

    /// Sums over a folder (the outputs' directory; "." for the top) or over everything.
    public struct Totals: Codable, Sendable, Equatable {
        public var folder: String
        public var added = 0
        public var removed = 0
        public var changed = 0
        public var unchanged = 0
        public var bytesBefore = 0
        public var bytesAfter = 0
        public var gpuBytesBefore = 0
        public var gpuBytesAfter = 0

        public init(folder: String) { self.folder = folder }

        /// GPU bytes after against before, in percent (nil when there were none before).
        public var gpuGrowthPercent: Double? {
            gpuBytesBefore > 0 ? Double(gpuBytesAfter - gpuBytesBefore) / Double(gpuBytesBefore) * 100 : nil
        }

        mutating func add(_ o: Output) {
            switch o.status {
            case .added: added += 1
            case .removed: removed += 1
            case .changed: changed += 1
            case .unchanged: unchanged += 1
            }
            bytesBefore += o.bytesBefore ?? 0
            bytesAfter += o.bytesAfter ?? 0
            gpuBytesBefore += o.gpuBytesBefore ?? 0
            gpuBytesAfter += o.gpuBytesAfter ?? 0
        }
    }

    /// A folder that cannot be listed.
    public struct FolderError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Pictures for the HTML page: level `level`, layer `layer` of output `picture`, before, after
    /// and the FLIP map, each at most `pictureSide` texels on its longer side.
    public static let pictureSide = 512

    /// Compares the folders on `workers` cores. With `pictures`, each changed output's levels and
    /// layers are written there as PNGs while they are decoded (`<n>/L<level>-<layer>-before.png`,
    /// `-after.png`, `-flip.png`; a volume's picked slices only).
    public static func diff(
        base: String, head: String, workers: Int,
        maxPixels: Int = Image.defaultMaxPixels, pictures: String? = nil
    ) throws -> Report {
        let before = try files(base)
        let after = try files(head)
        let paths = Set(before).union(after).sorted()
        let inBase = Set(before)
        let inHead = Set(after)
        // The biggest files first, so the last ones to finish are small.
        func size(_ p: String) -> Int {
            let b = (try? FileManager.default.attributesOfItem(atPath: base + "/" + p)[.size] as? Int) ?? 0
            let h = (try? FileManager.default.attributesOfItem(atPath: head + "/" + p)[.size] as? Int) ?? 0
            return max(b, h)
        }
        let order = paths.indices.map { ($0, size(paths[$0])) }.sorted { $0.1 > $1.1 }.map(\.0)
        let results = Mutex([Output?](repeating: nil, count: paths.count))
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, paths.count))) { _ in
            while true {
                let k = next.withLock { n in
                    defer { n += 1 }
                    return n
                }
                guard k < order.count else { return }
                let i = order[k]
                let p = paths[i]
                let output = compare(
                    p, base: inBase.contains(p) ? base + "/" + p : nil, head: inHead.contains(p) ? head + "/" + p : nil,
                    maxPixels: maxPixels, pictures: pictures.map { ($0, i) })
                results.withLock { $0[i] = output }
            }
        }
        let outputs = results.withLock { $0 }.compactMap { $0 }
        return report(base: base, head: head, outputs)
    }

    /// The report of compared outputs: ordered, and summed per folder and overall.
    static func report(base: String, head: String, _ outputs: [Output]) -> Report {
        func rank(_ o: Output) -> Int {
            switch o.status {
            case .changed: 0
            case .added: 1
            case .removed: 2
            case .unchanged: 3
            }
        }
        let sorted = outputs.sorted { a, b in
            if rank(a) != rank(b) { return rank(a) < rank(b) }
            if a.status == .changed {
                let (ka, kb) = (changeKey(a), changeKey(b))
                if ka != kb { return ka.lexicographicallyPrecedes(kb) == false }
            }
            return a.path < b.path
        }
        var folders: [String: Totals] = [:]
        var total = Totals(folder: ".")
        for o in sorted {
            let dir = (o.path as NSString).deletingLastPathComponent
            let folder = dir.isEmpty ? "." : dir
            folders[folder, default: Totals(folder: folder)].add(o)
            total.add(o)
        }
        return Report(
            base: base, head: head, outputs: sorted, folders: folders.values.sorted { $0.folder < $1.folder },
            total: total)
    }

    /// How much a changed output changed, for the order: its worst FLIP (the most visible change
    /// first); outputs compared by bytes only follow, the largest change of GPU bytes, then of file
    /// bytes, first.
    static func changeKey(_ o: Output) -> [Double] {
        let gpu = Double(abs((o.gpuBytesAfter ?? 0) - (o.gpuBytesBefore ?? 0)))
        let bytes = Double(abs((o.bytesAfter ?? 0) - (o.bytesBefore ?? 0)))
        if let flip = o.worst?.flip { return [1, flip, 1 - (o.worst?.ssim ?? 1), gpu, bytes] }
        if let psnr = o.worst?.psnr { return [1, 0, 0, -psnr, gpu] }
        return [0, gpu, bytes]
    }

    /// Every regular file under `root`, relative to it, in no particular order; hidden files and
    /// folders (a leading ".") are left out.
    static func files(_ root: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FolderError(description: "\(root): no such folder")
        }
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw FolderError(description: "\(root): cannot be read")
        }
        var found: [String] = []
        while let p = walker.nextObject() as? String {
            let name = (p as NSString).lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            if let type = walker.fileAttributes?[.type] as? FileAttributeType, type == .typeRegular {
                found.append(p)
            }
        }
        return found
    }
}

extension Differ {
    /// One side of a pair, opened: its size, and its pixels as a texture file, or an image's header
    /// and bytes (decoded only when the pair is compared).
    struct Side {
        var bytes: Int
        var texture: TextureFile?
        var header: ImageHeader?
        var file: [UInt8] = []
        var maxPixels: Int
        var description: String
        var gpuBytes: Int?
        /// A quality target's choice from the file's `texpipe.target` record: (format, "qlevel 96").
        var choice: (format: String, knob: String)?

        init(_ data: [UInt8], path: String, maxPixels: Int) throws {
            bytes = data.count
            self.maxPixels = maxPixels
            let format = ImageFormat.sniff(data)
            if format?.container != nil {
                let t = try TextureFile(data, maxPixels: maxPixels)
                texture = t
                choice = t.target.flatMap(Differ.choice)
                let info = t.format.info
                gpuBytes = t.levels.indices.reduce(0) {
                    $0 + info.levelBytes(t.levels[$1].width, t.levels[$1].height) * t.slices($1)
                }
                description =
                    "\(t.format.rawValue) \(t.container.name), \(t.width)×\(t.height)"
                    + (t.isVolume ? "×\(t.depth)" : "") + (t.levels.count > 1 ? ", \(t.levels.count) levels" : "")
                    + (t.isCube ? ", cube" : "") + (t.isArray ? ", \(t.layers / (t.isCube ? 6 : 1)) layers" : "")
            } else if let format {
                let h = try ImageDecoder.header(data, path: path)
                guard h.width > 0, h.height > 0 else { throw CodecError(.zeroSize) }
                guard UInt64(h.width) * UInt64(h.height) <= UInt64(maxPixels) else {
                    throw CodecError(
                        .overPixelLimit(width: UInt64(h.width), height: UInt64(h.height), limit: maxPixels))
                }
                header = h
                file = data
                // As uncompressed RGBA: 4 bytes a texel, 8 at 16 bits or in half floats (HDR).
                gpuBytes = h.width * h.height * (h.depth == 8 ? 4 : 8)
                description = "\(format.name) \(h.width)×\(h.height)" + (h.depth == 16 ? ", 16-bit" : "")
            } else {
                description = "other"
            }
        }

        var isPicture: Bool { texture != nil || header != nil }
        var levels: Int { texture?.levels.count ?? 1 }
        func slices(_ level: Int) -> Int { texture?.slices(level) ?? 1 }
        var width: Int { texture?.width ?? header?.width ?? 0 }
        var height: Int { texture?.height ?? header?.height ?? 0 }
        var depth: Int { texture?.depth ?? 1 }
        var layers: Int { texture.map { $0.isVolume ? 1 : $0.layers } ?? 1 }
        var channels: TextureFormatInfo.Channels? { texture?.format.info.channels }

        func picture(level: Int, layer: Int) throws -> Image {
            if let texture { return try texture.level(level, layer: layer) }
            return try ImageDecoder.decode(file, maxPixels: maxPixels)
        }
    }

    /// One path compared: each file read once and opened (an unchanged pair once for both sides),
    /// and for a changed picture every level and layer measured.
    package static func compare(_ path: String, base: String?, head: String?, maxPixels: Int, pictures: (String, Int)?)
        -> Output
    {
        var o = Output(path: path, status: .unchanged, parts: [])
        var data: [[UInt8]?] = [nil, nil]
        var errors: [String] = []
        for (k, (label, file)) in [("BASE", base), ("HEAD", head)].enumerated() {
            guard let file else { continue }
            switch FileReader.read(file) {
            case .success(let bytes): data[k] = bytes
            case .failure(let e): errors.append("\(label): \(e.description)")
            }
        }
        (o.bytesBefore, o.bytesAfter) = (data[0]?.count, data[1]?.count)
        switch (base, head) {
        case (nil, _): o.status = .added
        case (_, nil): o.status = .removed
        default: o.status = data[0] != nil && data[0] == data[1] ? .unchanged : .changed
        }
        var sides: [Side?] = [nil, nil]
        for (k, label) in ["BASE", "HEAD"].enumerated() {
            guard let bytes = data[k] else { continue }
            if k == 1, o.status == .unchanged {
                sides[1] = sides[0]
                continue
            }
            do {
                sides[k] = try Side(bytes, path: k == 0 ? base! : head!, maxPixels: maxPixels)
            } catch {
                errors.append("\(label): \(error)")
            }
        }
        if !errors.isEmpty { o.error = errors.joined(separator: "; ") }
        let (b, h) = (sides[0], sides[1])
        if let b { (o.before, o.gpuBytesBefore) = (b.description, b.gpuBytes) }
        if let h { (o.after, o.gpuBytesAfter) = (h.description, h.gpuBytes) }
        if let cb = b?.choice, let ch = h?.choice, cb != ch {
            let (kb, kh) = (cb.knob.split(separator: " "), ch.knob.split(separator: " "))
            o.choice =
                cb.format != ch.format
                ? "\(cb.format) \(cb.knob) → \(ch.format) \(ch.knob)"
                : kb.count == 2 && kh.count == 2 && kb[0] == kh[0] ? "\(cb.knob) → \(kh[1])" : "\(cb.knob) → \(ch.knob)"
            o.note = ["target's choice " + o.choice!, o.note].compactMap { $0 }.joined(separator: "; ")
        }
        guard o.status == .changed, let b, let h else { return o }
        guard b.isPicture == h.isPicture else {
            o.error = (b.isPicture ? "HEAD" : "BASE") + ": not a PNG, JPEG, EXR, Radiance, KTX2 or DDS file any more"
            return o
        }
        guard b.isPicture else { return o }
        do {
            try measure(&o, b, h, pictures: pictures)
        } catch {
            o.error = "\(error)"
        }
        return o
    }

    /// Fills `o`'s parts: each level and layer (face, slice) both files have, HEAD against BASE.
    static func measure(_ o: inout Output, _ b: Side, _ h: Side, pictures: (String, Int)?) throws {
        guard b.width == h.width, b.height == h.height, b.depth == h.depth, b.layers == h.layers else {
            func shape(_ s: Side) -> String {
                "\(s.width)×\(s.height)" + (s.depth > 1 ? "×\(s.depth)" : "") + (s.layers > 1 ? " × \(s.layers)" : "")
            }
            o.note = "sizes differ (\(shape(b)) → \(shape(h))): compared by bytes only"
            return
        }
        let levels = min(b.levels, h.levels)
        if b.levels != h.levels {
            o.note = "levels \(b.levels) → \(h.levels): compared the first \(levels)"
        }
        var normal: Bool?
        var twoChannel = false
        if let c = h.channels ?? b.channels, c == .rg { twoChannel = true }
        var folder: String?
        if let (dir, n) = pictures {
            folder = "\(dir)/\(n)"
            try FileManager.default.createDirectory(atPath: folder!, withIntermediateDirectories: true)
            o.picture = n
        }
        for level in 0..<levels {
            let count = b.slices(level)
            let shown = Set(b.texture?.isVolume == true ? TextureFile.picks(count) : Array(0..<count))
            if pictures != nil, level == 0, shown.count < count { o.picturedLayers = shown.sorted() }
            for layer in 0..<count {
                let x = try b.picture(level: level, layer: layer)
                let y = try h.picture(level: level, layer: layer)
                if x.isHDR || y.isHDR {
                    o.hdr = true
                    let (part, map) = hdrPart(level, layer, x, y)
                    o.parts.append(part)
                    if let folder, shown.contains(layer) { try savePictures(folder, level, layer, x, y, map) }
                    continue
                }
                let (p, q) = (TextureEncoder.rgba8(x), TextureEncoder.rgba8(y))
                if normal == nil {
                    normal = looksLikeNormalMap(p, twoChannel: twoChannel)
                    o.normalMap = normal
                }
                let channels: TextureFormatInfo.Channels =
                    h.channels ?? b.channels ?? (opaque(p) && opaque(q) ? .rgb : .rgba)
                let (part, map) = ldrPart(
                    level, layer, x.width, x.height, p, q, channels: channels, normal: normal!,
                    map: folder != nil && shown.contains(layer))
                o.parts.append(part)
                if let folder, shown.contains(layer) { try savePictures(folder, level, layer, x, y, map) }
            }
        }
        o.worst = o.parts.dropFirst().reduce(o.parts.first) { $0?.worse($1) }
    }

    /// HEAD against BASE on 8-bit RGBA texels, measured as the encoder's gates measure a level
    /// (`Quality.measured`: PSNR and SSIM over the colour channels `channels` names and alpha where
    /// it does, FLIP for colour, the normal angle for normal maps), BASE being a decode too; with
    /// `map`, FLIP's map.
    static func ldrPart(
        _ level: Int, _ layer: Int, _ w: Int, _ h: Int, _ base: [UInt8], _ head: [UInt8],
        channels: TextureFormatInfo.Channels, normal: Bool, map wantMap: Bool
    ) -> (Part, [Float]?) {
        let sink = wantMap ? FLIPMapSink() : nil
        let q = Quality.measured(
            Quality.level(base, head, channels: channels), base, head, width: w, height: h, channels: channels,
            QualityMetrics(perceptual: true, normals: normal, flipMaps: sink), sourceDecoded: true)
        return (Part(level: level, layer: layer, width: w, height: h, q), sink?.map?.values)
    }

    /// HEAD against BASE in floats: log-RGB PSNR and HDR-FLIP (an LDR side read as linear values).
    static func hdrPart(_ level: Int, _ layer: Int, _ x: Image, _ y: Image) -> (Part, [Float]) {
        let (p, q) = (floats(x), floats(y))
        let f = Quality.hdrFLIP(p, q, width: x.width, height: x.height)
        return (
            Part(
                level: level, layer: layer, width: x.width, height: x.height,
                LevelQuality(rgb: Quality.logPSNR(p, q), alpha: nil, flip: f.mean)),
            f.map
        )
    }

    static func opaque(_ rgba: [UInt8]) -> Bool {
        stride(from: 3, to: rgba.count, by: 4).allSatisfy { rgba[$0] == 255 }
    }

    static func floats(_ image: Image) -> [Float] {
        switch image.pixels {
        case .rgbaF32(let p): p
        case .rgba8(let p): p.map { Float($0) / 255 }
        case .rgba16(let p): p.map { Float($0) / 65535 }
        }
    }

    /// Whether 8-bit RGBA texels hold unit normals (x, y, z = 2c/255 − 1): at least 95 % of them
    /// within 15 % of unit length with z ≥ 0 and their mean z at least 0.5 (a surface facing out);
    /// for a two-channel format, at least 95 % with x² + y² ≤ 1.05 (z is rebuilt).
    public static func looksLikeNormalMap(_ rgba: [UInt8], twoChannel: Bool) -> Bool {
        let n = rgba.count / 4
        guard n > 0 else { return false }
        var unit = 0
        var zSum = 0.0
        for i in 0..<n {
            let x = Double(rgba[4 * i]) / 127.5 - 1
            let y = Double(rgba[4 * i + 1]) / 127.5 - 1
            if twoChannel {
                if x * x + y * y <= 1.05 { unit += 1 }
                continue
            }
            let z = Double(rgba[4 * i + 2]) / 127.5 - 1
            zSum += z
            let length = (x * x + y * y + z * z).squareRoot()
            if abs(length - 1) <= 0.15, z >= -0.01 { unit += 1 }
        }
        return Double(unit) >= 0.95 * Double(n) && (twoChannel || zSum / Double(n) >= 0.5)
    }

    /// Before, after and the FLIP map of one level's layer as PNGs (HDR tonemapped), at most
    /// `pictureSide` texels on the longer side.
    static func savePictures(_ folder: String, _ level: Int, _ layer: Int, _ x: Image, _ y: Image, _ map: [Float]?)
        throws
    {
        func shown(_ image: Image) -> Image { Tonemap.shown(image, fitting: pictureSide) }
        let stem = "\(folder)/L\(level)-\(layer)"
        try AtomicWriter.write(try ImageEncoder.png(shown(x)), to: stem + "-before.png")
        try AtomicWriter.write(try ImageEncoder.png(shown(y)), to: stem + "-after.png")
        if let map {
            try AtomicWriter.write(
                try ImageEncoder.png(shown(heatMap(map, x.width, x.height))), to: stem + "-flip.png")
        }
    }

    /// A FLIP map as a picture: 0 black, through red (⅓) and yellow (⅔), to 1 white.
    public static func heatMap(_ map: [Float], _ w: Int, _ h: Int) -> Image {
        var rgba = [UInt8](repeating: 255, count: w * h * 4)
        for i in 0..<(w * h) {
            let e = Double(min(max(map[i], 0), 1)) * 3
            let r = min(1, e)
            let g = min(1, max(0, e - 1))
            let b = min(1, max(0, e - 2))
            rgba[4 * i] = UInt8((r * 255).rounded())
            rgba[4 * i + 1] = UInt8((g * 255).rounded())
            rgba[4 * i + 2] = UInt8((b * 255).rounded())
        }
        return Image(width: w, height: h, pixels: .rgba8(rgba))
    }
}

extension Differ {
    /// A `texpipe.target` record's format and knob ("qlevel 96"; the format alone when no knob was
    /// searched); nil when it is not such a record.
    static func choice(_ record: String) -> (format: String, knob: String)? {
        guard case .object(let o)? = try? JSONParser.parse(Array(record.utf8)),
            case .string(let format)? = o["format"]
        else { return nil }
        for knob in ["qlevel", "lambda", "block", "quality"] {
            switch o[knob] {
            case .number(let v)?: return (format, "\(knob) \(ValueText.number(v))")
            case .string(let v)?: return (format, "\(knob) \(v)")
            default: continue
            }
        }
        return (format, format)
    }
}
