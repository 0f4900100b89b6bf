import ArgumentParser
import Dispatch
import Foundation
import TexPipe

/// `texpipe encode-blocks`: one block encoder alone on raw RGBA8 (through `TextureCodecs`, as the
/// texture writer reaches it), for
/// `Benchmarks/encoders/compare-encoders.sh` (which compares it with the reference encoders). Hidden.
struct EncodeBlocks: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode-blocks",
        abstract: "Encode raw RGBA8 (width × height) into one format's blocks; print the seconds taken.",
        shouldDisplay: false)

    @Option(help: ArgumentHelp(CLIMessage.blockFormats)) var format: TextureSettings.Format
    @Option(help: "Encoder effort.") var quality: TextureSettings.Quality = .medium
    @Option(help: ArgumentHelp("rdo with this λ (\(TextureSettings.RDO.formats.joined(separator: ", ")))."))
    var rdoLambda: Double?
    @Option(
        help: ArgumentHelp(
            "rdo: the largest λ losing at most this many dB (\(TextureSettings.RDO.formats.joined(separator: ", ")))."))
    var rdoMaxLoss: Double?
    @Option(help: ArgumentHelp(CLIMessage.knob("qlevel"))) var qlevel: Int?
    @Option(help: "Cores to encode on, lent as the engine lends them to one large job.") var cores = 1
    @Option(help: "Untimed encodes before the timed one (not etc1s).") var warmup = 0
    @Flag(
        help: ArgumentHelp(
            "\(TextureSettings.Format.hdrNames): decode the input's blocks into raw Float32 RGBA instead."))
    var decode = false
    @Argument(help: "Raw RGBA8 input.") var input: String
    @Argument var width: Int
    @Argument var height: Int
    @Argument(help: "Where the blocks go (etc1s: a KTX2 file).") var output: String

    func run() throws {
        // Any block format, through the one door (`TextureCodecs`): this command knows no family.
        guard !format.info.codec.family.exact else {
            throw ValidationError(CLIMessage.notBCFormat)
        }
        if format.info.hdr { return try runHDR() }
        guard let data = FileManager.default.contents(atPath: input), data.count == width * height * 4 else {
            throw ValidationError(CLIMessage.rawSize(input, width * height * 4))
        }
        let rgba = Array(data)
        // Untimed runs first: the timed one warm, as a reference called in its own process is timed.
        for _ in 0..<max(0, warmup) where !format.info.codec.family.wholeFile {
            _ = try TextureCodecs.encode(rgba, width, height, settings, rows: rows)
        }
        let t = DispatchTime.now().uptimeNanoseconds
        // A whole-file family (etc1s) is one KTX2 file, its global data and its one level.
        let blocks =
            format.info.codec.family.wholeFile
            ? try TextureEncoder.encode(
                [Image(width: width, height: height, pixels: .rgba8(rgba))], settings, container: .ktx2, rows: rows)
            : try TextureCodecs.encode(rgba, width, height, settings, rows: rows)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        try Data(blocks).write(to: URL(fileURLWithPath: output))
        print(seconds)
    }

    /// The format, effort and rdo as a texture's settings: the encoder is reached through
    /// `TextureCodecs`, the one door from a format to its codec, as the texture writer reaches it.
    var settings: TextureSettings {
        var s = TextureSettings.standard
        s.format = format
        s.quality = quality
        s.rdo = rdoLambda.map { .lambda($0) } ?? rdoMaxLoss.map { .maxLoss($0) }
        s.qlevel = qlevel
        return s
    }

    /// `cores` lent as the engine lends them to one large job (one: every band on this thread).
    var rows: any RowScheduler { CoreLender(idle: cores - 1, minimumPixels: 0) }

    /// An HDR format: the input is raw little-endian Float32 RGBA; with `--decode`, its blocks
    /// decoded into it.
    func runHDR() throws {
        if decode {
            guard let data = FileManager.default.contents(atPath: input) else {
                throw ValidationError(CLIMessage.rawSize(input, (width + 3) / 4 * ((height + 3) / 4) * 16))
            }
            let floats = try TextureCodecs.decodeHDR(Array(data), width, height, format: format)
            try floats.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: output)) }
            return
        }
        guard let data = FileManager.default.contents(atPath: input), data.count == width * height * 16 else {
            throw ValidationError(CLIMessage.rawSize(input, width * height * 16))
        }
        let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let t = DispatchTime.now().uptimeNanoseconds
        let blocks = try TextureCodecs.encodeHDR(floats, width, height, settings, rows: rows)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        try Data(blocks).write(to: URL(fileURLWithPath: output))
        print(seconds)
    }
}
