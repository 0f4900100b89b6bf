internal import Foundation
public import TexPipeFormats

/// PSNR: of RGBA8 levels over the channels a format stores, and log-RGB for HDR levels
/// (`LevelQuality`, in TexPipeFormats, is what it gives).
public enum Quality {
    /// Per channel R, G, B, A: the sum of squared differences of interleaved RGBA8 texels, four
    /// texels (16 bytes) at a time.
    public static func squaredErrors(_ a: [UInt8], _ b: [UInt8]) -> SIMD4<Int64> {
        precondition(a.count == b.count && a.count % 4 == 0)
        var total = SIMD16<Int64>()
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                let chunks = a.count / 16
                var k = 0
                while k < chunks {
                    // 32,768 chunks at most per partial sum: 255² · 32,768 stays below 2³¹.
                    let end = min(chunks, k + 32768)
                    var acc = SIMD16<Int32>()
                    while k < end {
                        let x = SIMD16<Int32>(
                            truncatingIfNeeded: a.loadUnaligned(fromByteOffset: k * 16, as: SIMD16<UInt8>.self))
                        let y = SIMD16<Int32>(
                            truncatingIfNeeded: b.loadUnaligned(fromByteOffset: k * 16, as: SIMD16<UInt8>.self))
                        let d = x &- y
                        acc &+= d &* d
                        k += 1
                    }
                    total &+= SIMD16<Int64>(truncatingIfNeeded: acc)
                }
                for i in (chunks * 16)..<a.count {
                    let d = Int64(a[i]) - Int64(b[i])
                    total[i % 4] &+= d * d
                }
            }
        }
        return SIMD4(
            total[0] + total[4] + total[8] + total[12], total[1] + total[5] + total[9] + total[13],
            total[2] + total[6] + total[10] + total[14], total[3] + total[7] + total[11] + total[15])
    }

    /// 10 · log10(255² / MSE) of `sum` squared differences over `samples`, capped at 99 dB.
    package static func psnr(sum: Int64, samples: Int) -> Double {
        guard sum > 0, samples > 0 else { return LevelQuality.identical }
        return min(LevelQuality.identical, 10 * log10(255 * 255 / (Double(sum) / Double(samples))))
    }

    /// PSNR of interleaved RGBA8 texels over `channels` (a prefix of R, G, B, or [3] for alpha).
    public static func psnr(_ a: [UInt8], _ b: [UInt8], channels: ClosedRange<Int>) -> Double {
        let e = squaredErrors(a, b)
        return psnr(sum: channels.reduce(0) { $0 + e[$1] }, samples: (a.count / 4) * channels.count)
    }

    /// One level: the texels encoded against the texels decoded, over what `channels` stores.
    public static func level(
        _ original: [UInt8], _ decoded: [UInt8], channels: TextureFormatInfo.Channels
    ) -> LevelQuality {
        level(errors: squaredErrors(original, decoded), texels: original.count / 4, channels: channels)
    }

    /// One level from its per-channel squared errors over `texels` texels.
    public static func level(
        errors e: SIMD4<Int64>, texels n: Int, channels: TextureFormatInfo.Channels
    ) -> LevelQuality {
        switch channels {
        case .r: return LevelQuality(rgb: psnr(sum: e[0], samples: n), alpha: nil)
        case .rg: return LevelQuality(rgb: psnr(sum: e[0] + e[1], samples: 2 * n), alpha: nil)
        case .rgb: return LevelQuality(rgb: psnr(sum: e[0] + e[1] + e[2], samples: 3 * n), alpha: nil)
        case .rgba:
            return LevelQuality(
                rgb: psnr(sum: e[0] + e[1] + e[2], samples: 3 * n), alpha: psnr(sum: e[3], samples: n))
        }
    }
}

extension Quality {
    /// The log-RGB PSNR of an HDR level (docs/hdr.md): each of R, G and B as log2 of the value
    /// clamped to the normal half-float range [2⁻¹⁴, 65504], so a step is a relative error
    /// wherever it falls; the peak is that range's width, 30 stops: 10 · log10(30² / MSE), capped
    /// at 99 dB. Interleaved Float RGBA, the encoded image against its decode.
    public static func logPSNR(_ original: [Float], _ decoded: [Float]) -> Double {
        precondition(original.count == decoded.count && original.count % 4 == 0)
        @inline(__always) func log(_ v: Float) -> Double {
            Double(Foundation.log2(v.isNaN ? 0x1p-14 : min(max(v, 0x1p-14), 65504)))
        }
        var sum = 0.0
        var i = 0
        while i < original.count {
            for c in 0..<3 {
                let d = log(original[i + c]) - log(decoded[i + c])
                sum += d * d
            }
            i += 4
        }
        let texels = original.count / 4
        guard sum > 0, texels > 0 else { return LevelQuality.identical }
        return min(LevelQuality.identical, 10 * log10(30 * 30 / (sum / Double(3 * texels))))
    }
}
