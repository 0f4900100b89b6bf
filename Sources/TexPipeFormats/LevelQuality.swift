/// The PSNR of one level of an output against the image that was encoded: over the color
/// channels the format stores (R; R and G; or R, G and B), and alpha on its own where the format
/// stores it. 10 · log10(255² / MSE), capped at 99 dB, which stands for "identical".
public struct LevelQuality: Sendable, Equatable, Codable {
    public var rgb: Double
    public var alpha: Double?

    public init(rgb: Double, alpha: Double?) {
        self.rgb = rgb
        self.alpha = alpha
    }

    /// The lower of the two: what a `minPSNR` gate compares.
    public var worst: Double { min(rgb, alpha ?? .infinity) }

    public static let identical = 99.0
}
