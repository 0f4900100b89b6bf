internal import Foundation
internal import TexPipe

/// Every reader of an untrusted file, as a fuzz target (docs/guarantees.md "Every file is
/// hostile"): the bytes go through what texpipe does with such a file, and the answer is "ok" or
/// the one-line error a user would see. A crash, a hang or an allocation beyond the pixel limit is
/// the fuzzer's finding; `Scripts/fuzz` runs each target, and every finding's input is kept in
/// Tests/TexPipeTests/Fixtures/fuzz/TARGET/ as a regression test.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// KTX2 and DDS files, as `inspect` reads them: the container, then every level decoded.
    case texture
    /// PNG and JPEG inputs, as a job decodes them: texpipe's own PNG reader (which joins the IDAT
    /// chunks in the file's buffer and puts them back when it steps aside), then libpng or
    /// libjpeg for what it does not take.
    case image
    /// HDR inputs, as a job decodes them: OpenEXR files through OpenEXRCore (the shim), Radiance
    /// files through texpipe's own reader.
    case hdr
    /// `pipeline.json`: parsed, validated (every diagnostic worded with its JSON path) and planned
    /// over a folder holding one small PNG.
    case manifest
    /// A variant table file named by a manifest.
    case variants
    /// `.texpipe/index` and `.texpipe/journal` (split at the first NUL byte): read, every record
    /// parsed, written out again.
    case index
    /// A remote cache's `/ac/` entry.
    case remoteEntry = "remote-entry"
    /// glTF models, `.gltf` JSON or GLB (docs/gltf.md): read and checked, their images found and
    /// given roles, then rewritten both as a GLB and as a `.gltf` with every used image replaced;
    /// each rewrite must read back as a model.
    case gltf
    /// `.cube` colour-grading LUTs (docs/gpu-textures.md "Colour-grading LUTs"): parsed; a LUT that
    /// reads is written as an rgba8 volume in DDS, which must read back slice by slice.
    case cube
    /// `texpipe diff` of two files (docs/command-line.md "Reviewing a change"): a 4-byte
    /// little-endian length, BASE's bytes, then HEAD's; both read as `diff` reads them (PNG, JPEG,
    /// EXR, Radiance, KTX2, DDS or other bytes), a changed pair of pictures measured level by level
    /// with its pictures written.
    case diff
    /// WebP inputs (docs/manifest.md "WebP and AVIF"): the header, then the image decoded as a job
    /// decodes it (libwebp; an animation's first frame through libwebpdemux).
    case webp
    /// AVIF inputs: the header (libavif's boxes), then the image decoded as a job decodes it (the
    /// AV1 payload, libavif's YUV → RGB, a CICP conversion).
    case avif
    /// The BasisLZ reader inside KTX2 (ETC1S: its global data, endpoint and selector codebooks and
    /// Huffman tables): KTX2 files whose supercompression is BasisLZ, every level decoded. The
    /// `texture` target reads these too, among every other format; this one spends its time here.
    case basislz = "basislz"

    /// The pixel limit the targets run under: a decoder that allocates beyond it is a finding.
    package static let maxPixels = 1 << 22

    /// A folder of the process's own for the targets that need files (one small PNG in it): in
    /// memory where the system has a tmpfs (/dev/shm), since creating and removing files on a
    /// disk's file system was most of each execution (ten million are asked of each target).
    /// Removed when the process exits (as libFuzzer's runs end): left behind, hundreds of them
    /// made every manifest globbing `../*` list and sort them.
    static let folder: String = {
        let shm = "/dev/shm"
        let base = access(shm, W_OK) == 0 ? shm + "/" : NSTemporaryDirectory()
        let dir = base + "texpipe-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: FuzzTarget.folder) }
        let png = try? ImageEncoder.png(Image(width: 4, height: 4, pixels: .rgba8(.init(repeating: 200, count: 64))))
        write(dir + "/a.png", png ?? [])
        return dir
    }()

    /// A plain write: no temporary file, no fsync (the file is the target's own, read at once).
    static func write(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    }

    /// "ok", or the one-line error texpipe gives for these bytes.
    package func run(_ bytes: [UInt8]) -> String {
        do {
            let said: String? =
                switch self {
                case .texture: try Self.fuzzTexture(bytes)
                case .image: try Self.fuzzImage(bytes)
                case .hdr: try Self.fuzzHdr(bytes)
                case .manifest: try Self.fuzzManifest(bytes)
                case .variants: try Self.fuzzVariants(bytes)
                case .index: try Self.fuzzIndex(bytes)
                case .remoteEntry: try Self.fuzzRemoteEntry(bytes)
                case .diff: try Self.fuzzDiff(bytes)
                case .cube: try Self.fuzzCube(bytes)
                case .gltf: try Self.fuzzGltf(bytes)
                case .webp, .avif: try Self.fuzzWeb(bytes, self == .webp ? .webp : .avif)
                case .basislz: try Self.fuzzBasisLZ(bytes)
                }
            return said ?? "ok"
        } catch let e as ManifestError {
            return e.diagnostics.map(\.message).joined(separator: "; ")
        } catch {
            return "\(error)"
        }
    }

    /// The `texture` target's work (see its case).
    static func fuzzTexture(_ bytes: [UInt8]) throws -> String? {
        let file = try TextureFile(bytes, maxPixels: Self.maxPixels)
        for n in file.levels.indices { _ = try file.level(n) }
        _ = try Inspector.textureFacts(bytes, path: "fuzz.ktx2", maxPixels: Self.maxPixels)
        return nil
    }

    /// The `webp` and `avif` targets' work (see their cases): only files that are the target's
    /// kind go further than their first bytes.
    static func fuzzWeb(_ bytes: [UInt8], _ kind: FileKind) throws -> String? {
        guard FileKind.sniff(bytes) == kind else { return "not a \(kind.row.name) file" }
        let header = try ImageDecoder.header(bytes)
        var warned = false
        let image = try ImageDecoder.decode(bytes, maxPixels: Self.maxPixels, warn: { _ in warned = true })
        precondition(image.width * image.height <= Self.maxPixels, "decoded past the pixel limit")
        precondition(image.width == header.width && image.height == header.height, "decoded another size")
        precondition(warned == (header.frames > 1), "an animation's warning")
        return nil
    }

    /// The `basislz` target's work (see its case): a KTX2 whose supercompressionScheme (the u32
    /// at byte 44) is not 1 is turned away at once.
    static func fuzzBasisLZ(_ bytes: [UInt8]) throws -> String? {
        guard bytes.count >= 48, bytes.starts(with: FileKind.ktx2Signature), bytes[44] == 1, bytes[45] == 0,
            bytes[46] == 0, bytes[47] == 0
        else { return "not a BasisLZ KTX2" }
        return try fuzzTexture(bytes)
    }

    /// The `image` target's work (see its case).
    static func fuzzImage(_ bytes: [UInt8]) throws -> String? {
        let image = try ImageDecoder.decode(bytes, path: "fuzz.png", maxPixels: Self.maxPixels)
        precondition(image.width * image.height <= Self.maxPixels, "decoded past the pixel limit")
        return nil
    }

    /// The `hdr` target's work (see its case).
    static func fuzzHdr(_ bytes: [UInt8]) throws -> String? {
        let image = try ImageDecoder.decode(bytes, path: "fuzz.exr", maxPixels: Self.maxPixels)
        precondition(image.width * image.height <= Self.maxPixels, "decoded past the pixel limit")
        return nil
    }

    /// The `manifest` target's work (see its case).
    static func fuzzManifest(_ bytes: [UInt8]) throws -> String? {
        do {
            let manifest = try Manifest.parse(bytes, file: "pipeline.json", directory: Self.folder)
            _ = try Planner.plan(manifest)
        } catch let e as ManifestError {
            // Every diagnostic is one line as printed, and a short one, whatever the JSON held.
            for d in e.diagnostics {
                let line = d.description
                precondition(
                    !line.contains(where: \.isNewline) && line.unicodeScalars.count < 1_100,
                    "a diagnostic is not one short line: \(line.prefix(200).debugDescription)")
            }
            throw e
        }
        return nil
    }

    /// The `variants` target's work (see its case).
    static func fuzzVariants(_ bytes: [UInt8]) throws -> String? {
        // Files of their own per call: tests run targets side by side in one process.
        let name = "variants-\(UUID().uuidString).json"
        let path = Self.folder + "/" + name
        Self.write(path, bytes)
        defer { unlink(path) }
        let manifest = #"""
            {"version": 1, "output": "out", "pipelines": [{"name": "p", "inputs": ["a.png"],
             "variants": "NAME", "output": "{variant}/{file}.png",
             "distinct": {"keys": ["shirt"], "minDeltaE": 5, "severity": "warning"}, "stages": []}]}
            """#
        let text = manifest.replacingOccurrences(of: "NAME", with: name)
        _ = try Planner.plan(
            try Manifest.parse(Array(text.utf8), file: "pipeline.json", directory: Self.folder))
        return nil
    }

    /// The `index` target's work (see its case).
    static func fuzzIndex(_ bytes: [UInt8]) throws -> String? {
        let split = bytes.firstIndex(of: 0) ?? bytes.count
        let unique = Self.folder + "/" + UUID().uuidString
        let (index, journal) = (unique + "-index", unique + "-journal")
        defer { for f in [index, journal] { unlink(f) } }
        Self.write(index, Array(bytes[..<split]))
        Self.write(journal, Array(bytes[min(bytes.count, split + 1)...]))
        let (text, damaged) = CacheIndex.rewritten(index: index, journal: journal)
        // What was written reads back to itself, with nothing damaged.
        Self.write(index, Array(text.utf8))
        Self.write(journal, [])
        let again = CacheIndex.rewritten(index: index, journal: journal)
        precondition(
            again.text == text && again.damaged == 0,
            "the index does not read back its own text: \(text.debugDescription) → \(again.text.debugDescription), \(again.damaged) damaged"
        )
        if damaged > 0 { return "\(damaged) damaged lines" }
        return nil
    }

    /// The `remoteEntry` target's work (see its case).
    static func fuzzRemoteEntry(_ bytes: [UInt8]) throws -> String? {
        // The scan of texpipe's own layout reads what Foundation's JSON parser reads.
        if let scanned = RemoteCache.canonicalFields(bytes) {
            let parsed = RemoteCache.jsonFields(bytes)
            precondition(
                parsed?.map(\.path) == scanned.map(\.path) && parsed?.map(\.sha256) == scanned.map(\.sha256)
                    && parsed?.map(\.size) == scanned.map(\.size)
                    && parsed?.map(\.contents) == scanned.map(\.contents)
                    && parsed?.map(\.measure) == scanned.map(\.measure),
                "the entry scan and the JSON parser disagree")
        }
        guard let listed = RemoteCache.parseEntry(bytes) else { return "malformed entry" }
        // Written and read again, an entry is the same.
        let again = RemoteCache.parseEntry(RemoteCache.entryText(listed.map { ($0.blob, $0.contents) }))
        let sorted = listed.sorted { $0.blob.path < $1.blob.path }
        precondition(
            again?.map(\.blob) == sorted.map(\.blob) && again?.map(\.contents) == sorted.map(\.contents),
            "an entry does not read back as written")
        return nil
    }

    /// The `diff` target's work (see its case).
    static func fuzzDiff(_ bytes: [UInt8]) throws -> String? {
        let length = bytes.prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let base = Array(bytes.dropFirst(4).prefix(length))
        let head = Array(bytes.dropFirst(4 + base.count))
        let unique = Self.folder + "/" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: unique) }
        try FileManager.default.createDirectory(atPath: unique + "/pictures", withIntermediateDirectories: true)
        Self.write(unique + "/base", base)
        Self.write(unique + "/head", head)
        let o = Differ.compare(
            "x", base: unique + "/base", head: unique + "/head", maxPixels: Self.maxPixels,
            pictures: (unique + "/pictures", 0))
        precondition(o.status == (base == head ? .unchanged : .changed), "a pair's status")
        precondition(o.bytesBefore == base.count || o.error != nil, "BASE's size")
        for part in o.parts {
            precondition(part.psnr.isFinite && part.psnr <= 99, "PSNR \(part.psnr)")
            for v in [part.ssim, part.ssimAlpha].compactMap({ $0 }) {
                precondition(v.isFinite && v >= -1 - 1e-6 && v <= 1 + 1e-6, "SSIM \(v)")
            }
            if let f = part.flip { precondition(f.isFinite && f >= 0 && f <= 1 + 1e-6, "FLIP \(f)") }
        }
        if let e = o.error { return e }
        return nil
    }

    /// The `cube` target's work (see its case).
    static func fuzzCube(_ bytes: [UInt8]) throws -> String? {
        let lut = try CubeLUT(bytes, maxTexels: Self.maxPixels)
        let n = lut.size
        precondition(lut.values.count == n * n * n * 3 && lut.values.allSatisfy(\.isFinite), "a LUT's table")
        var settings = TextureSettings.standard
        settings.colorSpace = .linear
        let slices = lut.slices8()
        let file = try TextureFile(
            try TextureEncoder.encode(volume: [slices], settings, container: .dds).bytes,
            maxPixels: Self.maxPixels)
        precondition(file.isVolume && file.depth == n && file.width == n, "a LUT's volume")
        for z in [0, n - 1] {
            let back = try file.level(0, layer: z)
            precondition(back.pixels == slices[z].pixels, "slice \(z) reads back")
        }
        return nil
    }

    /// The `gltf` target's work (see its case).
    static func fuzzGltf(_ bytes: [UInt8]) throws -> String? {
        let model = try GLTFModel.parse(bytes)
        let noFiles: (String) -> Result<[UInt8], GLTFError> = { .failure(GLTFError($0, "no files")) }
        let buffers = try model.buffers(read: noFiles)
        for k in model.items("images").indices { _ = try? model.imageBytes(k, buffers: buffers, read: noFiles) }
        for binary in [true, false] {
            let layout = try GLTFLayout(model, binary: binary, stem: "fuzz")
            let ktx2: [UInt8] = [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A]
            let files = layout.textures.map { t in
                GLTFTextureFiles(
                    basisu: GLTFImageFile(bytes: ktx2, mimeType: "image/ktx2", name: t.name + ".ktx2"),
                    plain: binary
                        ? nil : GLTFImageFile(bytes: [1, 2, 3], mimeType: "image/png", name: t.name + ".png"),
                    web: t.image % 2 == 0
                        ? GLTFImageFile(bytes: [4, 5], mimeType: "image/webp", name: t.name + ".webp") : nil)
            }
            let out = try GLTFRewrite.write(
                model, buffers: buffers, layout: layout, files: files, unused: [:], binary: binary)
            do {
                let again = try GLTFModel.parse(out.model)
                precondition(again.isBinary == binary, "the rewrite is not the container asked for")
            } catch {
                preconditionFailure("a rewritten model does not read back: \(error)")
            }
        }
        return nil
    }
}
