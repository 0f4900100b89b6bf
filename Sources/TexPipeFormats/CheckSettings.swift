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
    public var isEmpty: Bool { minPSNR == nil && maxBytes == nil && maxTotalBytes == nil && maxGPUBytes == nil }
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
    }
}
