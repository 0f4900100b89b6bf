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
