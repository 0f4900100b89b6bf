internal import CTexPipeASTC
internal import Foundation
internal import Synchronization
public import TexPipeFormats
internal import TexPipePixels

/// ASTC LDR through astcenc (the `CTexPipeASTC` shim). Presets: fast 10, medium 60, thorough 98
/// (astcenc's own `-fast`, `-medium`, `-thorough`).
public enum ASTC {
    static func preset(_ q: TextureSettings.Quality) -> Float {
        switch q {
        case .fast: 10
        case .medium: 60
        case .thorough: 98
        }
    }

    /// astcenc's profile number in the shim (tp_astc.h): 0 LDR, 1 LDR sRGB, 2 HDR.
    static func profile(_ format: TextureSettings.Format, srgb: Bool) -> Int32 {
        format.info.hdr ? 2 : srgb ? 1 : 0
    }

    /// Blocks of a w × h RGBA8 image. astcenc runs one thread per core `rows` lends; its output
    /// does not depend on the thread count.
    static func compress(
        _ rgba: [UInt8], _ w: Int, _ h: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        try rgba.withUnsafeBytes { try compress($0, isFloat: false, w, h, settings, rows: rows) }
    }

    /// Blocks of a w × h HDR image (Float RGBA), through astcenc's HDR profile.
    static func compressHDR(
        _ rgba: [Float], _ w: Int, _ h: Int, _ settings: TextureSettings, rows: any RowScheduler
    ) throws -> [UInt8] {
        try rgba.withUnsafeBytes { try compress($0, isFloat: true, w, h, settings, rows: rows) }
    }

    static func compress(
        _ src: UnsafeRawBufferPointer, isFloat: Bool, _ w: Int, _ h: Int, _ settings: TextureSettings,
        rows: any RowScheduler
    ) throws -> [UInt8] {
        let (bw, bh) = settings.format.info.block
        let blocks = ((w + bw - 1) / bw) * ((h + bh - 1) / bh)
        // astcenc's threads share the image's blocks through the context: each caller takes
        // blocks until none are left, so however many of the `threads` slots the scheduler
        // fills (one per band it runs), the image is done and the blocks are the same.
        let threads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 64))
        var error = [CChar](repeating: 0, count: 256)
        guard
            let context = tp_astc_context_alloc(
                UInt32(bw), UInt32(bh), profile(settings.format, srgb: settings.srgb), preset(settings.quality),
                UInt32(threads), 0, &error, 256)
        else { throw CodecError(.astc(String(nullTerminated: error))) }
        defer { tp_astc_context_free(context) }
        var out = [UInt8](repeating: 0, count: blocks * 16)
        // A band's failure, the first one kept (bands may run at once).
        let failure = Mutex<String?>(nil)
        out.withUnsafeMutableBufferPointer { dst in
            rows.forEachBand(rows: threads, pixelsPerRow: max(1, w * h / threads)) { band in
                var message = [CChar](repeating: 0, count: 256)
                if tp_astc_compress(
                    context, src.baseAddress, isFloat ? 1 : 0, UInt32(w), UInt32(h), dst.baseAddress, blocks * 16,
                    UInt32(band.lowerBound), &message, 256) != 0
                {
                    failure.withLock { $0 = $0 ?? String(nullTerminated: message) }
                }
            }
        }
        if let first = failure.withLock({ $0 }) { throw CodecError(.astc(first)) }
        return out
    }

    /// The texels of ASTC blocks (for previews and `inspect`).
    public static func decompress(
        _ data: [UInt8], width: Int, height: Int, format: TextureSettings.Format, srgb: Bool
    ) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        try out.withUnsafeMutableBytes { try decompress(data, into: $0, isFloat: false, width, height, format, srgb) }
        return out
    }

    /// The Float RGBA texels of ASTC HDR blocks.
    public static func decompressHDR(_ data: [UInt8], width: Int, height: Int, format: TextureSettings.Format) throws
        -> [Float]
    {
        var out = [Float](repeating: 0, count: width * height * 4)
        try out.withUnsafeMutableBytes { try decompress(data, into: $0, isFloat: true, width, height, format, false) }
        return out
    }

    static func decompress(
        _ data: [UInt8], into dst: UnsafeMutableRawBufferPointer, isFloat: Bool, _ width: Int, _ height: Int,
        _ format: TextureSettings.Format, _ srgb: Bool
    ) throws {
        let (bw, bh) = format.info.block
        guard data.count >= format.info.levelBytes(width, height) else {
            throw CodecError(.textureTruncated(format.rawValue))
        }
        var error = [CChar](repeating: 0, count: 256)
        // A decompression context is built once per block size and profile and kept: building
        // one (astcenc's partition tables) cost more than decoding a small level.
        let profile = Self.profile(format, srgb: srgb)
        let key = bw << 16 | bh << 8 | Int(profile)
        var context = Self.decoders.withLock { $0[key]?.popLast() }
        if context == nil {
            guard let made = tp_astc_context_alloc(UInt32(bw), UInt32(bh), profile, preset(.medium), 1, 1, &error, 256)
            else { throw CodecError(.astc(String(nullTerminated: error))) }
            context = Decoder(pointer: made)
        }
        defer { Self.decoders.withLock { $0[key, default: []].append(context!) } }
        let status = data.withUnsafeBufferPointer { src in
            tp_astc_decompress(
                context!.pointer, src.baseAddress, src.count, UInt32(width), UInt32(height), dst.baseAddress,
                isFloat ? 1 : 0, &error, 256)
        }
        if status != 0 { throw CodecError(.astc(String(nullTerminated: error))) }
    }

    /// A decompress-only astcenc context, used by one caller at a time (taken from and returned to
    /// `decoders`).
    struct Decoder: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Idle decompression contexts by block size and profile; at most one per thread that decoded
    /// at once, freed with the process.
    static let decoders = Mutex<[Int: [Decoder]]>([:])
}
