public import TexPipeParameters

/// A pipeline's `check`: quality and size gates for CI (docs/gpu-textures.md "Checks and
/// budgets"). Per job: `minPSNR` (dB, every level of a block-compressed or lossy output against
/// the image that was encoded) and `maxBytes` (each output file); per pipeline, after the run:
/// `maxTotalBytes` (file bytes) and `maxGPUBytes` (what the textures occupy in GPU memory).
public struct CheckSettings: Sendable, Hashable {
    public enum Severity: String, Sendable, CaseIterable {
        /// A failed gate fails the job (or the pipeline, for totals): exit 1, outputs still written.
        case error
        /// A failed gate is a warning line and a mark in the reports.
        case warning
    }

    public var minPSNR: Double?
    /// The lowest SSIM a level may have (the worse of colour and alpha).
    public var minSSIM: Double?
    /// The highest mean LDR-FLIP a level may have.
    public var maxFLIP: Double?
    /// The largest normal angle, degrees: its mean over a level and its 99th percentile. The gate
    /// marks the pipeline's outputs as normal maps.
    public var maxNormalError: (mean: Double?, p99: Double?)?
    public var maxBytes: Int?
    public var maxTotalBytes: Int?
    public var maxGPUBytes: Int?
    public var severity: Severity

    public init(
        minPSNR: Double? = nil, maxBytes: Int? = nil, maxTotalBytes: Int? = nil, maxGPUBytes: Int? = nil,
        severity: Severity = .error
    ) {
        self.minPSNR = minPSNR
        self.maxBytes = maxBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxGPUBytes = maxGPUBytes
        self.severity = severity
    }

    /// No gate at all: a job without one measures nothing it would not otherwise.
    public var isEmpty: Bool {
        minPSNR == nil && minSSIM == nil && maxFLIP == nil && maxNormalError == nil && maxBytes == nil
            && maxTotalBytes == nil && maxGPUBytes == nil
    }

    /// Whether a level's measures are needed (any quality gate).
    public var measures: Bool { minPSNR != nil || minSSIM != nil || maxFLIP != nil || maxNormalError != nil }

    public static func == (a: CheckSettings, b: CheckSettings) -> Bool {
        a.minPSNR == b.minPSNR && a.minSSIM == b.minSSIM && a.maxFLIP == b.maxFLIP
            && a.maxNormalError?.mean == b.maxNormalError?.mean && a.maxNormalError?.p99 == b.maxNormalError?.p99
            && (a.maxNormalError == nil) == (b.maxNormalError == nil) && a.maxBytes == b.maxBytes
            && a.maxTotalBytes == b.maxTotalBytes && a.maxGPUBytes == b.maxGPUBytes && a.severity == b.severity
    }

    public func hash(into h: inout Hasher) {
        h.combine(minPSNR)
        h.combine(minSSIM)
        h.combine(maxFLIP)
        h.combine(maxNormalError?.mean)
        h.combine(maxNormalError?.p99)
        h.combine(maxBytes)
        h.combine(maxTotalBytes)
        h.combine(maxGPUBytes)
        h.combine(severity)
    }
}

/// The pipeline's `check` gates (docs/gpu-textures.md "Checks and budgets").
extension CheckSettings {
    public static let parameters: [Parameter] = [
        Parameter(
            "minPSNR", .number(0...99), .optional(absentDoc: "no quality gate"),
            doc:
                "dB: every level of a block-compressed or JPEG output against the image encoded (RGB; alpha on its own)"
        ),
        Parameter(
            "minSSIM", .number(0...1), .optional(absentDoc: "no SSIM gate"),
            doc: "every level's SSIM (Gaussian window σ 1.5; the mean over R, G, B, and alpha on its own)"),
        Parameter(
            "maxFLIP", .number(0...1), .optional(absentDoc: "no FLIP gate"),
            doc: "every level's mean LDR-FLIP (NVIDIA's perceptual difference, 67 pixels per degree)"),
        Parameter(
            "maxNormalError",
            .object([
                Parameter(
                    "mean", .number(0...180), .optional(absentDoc: "no limit on the mean"),
                    doc: "degrees: the mean angle between the source's and the decoded unit normals"),
                Parameter(
                    "p99", .number(0...180), .optional(absentDoc: "no limit on the 99th percentile"),
                    doc: "degrees: the 99th percentile of that angle"),
            ]), .optional(absentDoc: "no normal gate"),
            doc: "normal maps: the angle per texel, Z rebuilt for two-channel formats; marks the outputs as normal maps"
        ),
        Parameter(
            "maxBytes", .integer(0...Int.max), .optional(absentDoc: "no per-file limit"),
            doc: "bytes of each output file"),
        Parameter(
            "maxTotalBytes", .integer(0...Int.max), .optional(absentDoc: "no total"),
            doc: "bytes of all the pipeline's output files (this run's jobs)"),
        Parameter(
            "maxGPUBytes", .integer(0...Int.max), .optional(absentDoc: "no GPU budget"),
            doc: "GPU memory of all the pipeline's outputs: every level, face and layer"),
        .choice("severity", Severity.self, default: .error, doc: "error: a failed gate fails the job or the pipeline"),
    ]

    public init(_ a: Arguments) {
        self.init(
            minPSNR: a.optionalNumber("minPSNR"), maxBytes: a.optionalInteger("maxBytes"),
            maxTotalBytes: a.optionalInteger("maxTotalBytes"), maxGPUBytes: a.optionalInteger("maxGPUBytes"),
            severity: a.choice("severity", as: Severity.self))
        minSSIM = a.optionalNumber("minSSIM")
        maxFLIP = a.optionalNumber("maxFLIP")
        maxNormalError = a.object("maxNormalError").map { ($0.optionalNumber("mean"), $0.optionalNumber("p99")) }
    }
}
