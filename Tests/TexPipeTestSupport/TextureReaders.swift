import Foundation

/// Readers of KTX 2.0 and DDS files written for the tests from the specifications alone (the
/// Khronos KTX 2.0 specification §3–§4 and the Data Format Specification's basic descriptor
/// block; Microsoft's "DDS_HEADER", "DDS_PIXELFORMAT" and "DDS_HEADER_DXT10" pages). They share
/// no code with texpipe's writers: every field is read by its byte offset.
public struct LittleEndian {
    public let bytes: [UInt8]
    public func u32(_ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }
    public func u64(_ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }
}

public struct KTX2File {
    public struct Level: Equatable {
        public var byteOffset: UInt64
        public var byteLength: UInt64
        public var uncompressedByteLength: UInt64

        public init(byteOffset: UInt64, byteLength: UInt64, uncompressedByteLength: UInt64) {
            (self.byteOffset, self.byteLength, self.uncompressedByteLength) = (
                byteOffset, byteLength, uncompressedByteLength
            )
        }
    }

    public struct Sample: Equatable {
        public var bitOffset: Int
        public var bitLength: Int  // as stored: bits − 1
        public var channelType: Int  // low 4 bits
        public var qualifiers: Int  // high 4 bits: 1 linear, 2 exponent, 4 signed, 8 float
        public var samplePosition: [Int]
        public var lower: UInt32
        public var upper: UInt32

        public init(
            bitOffset: Int, bitLength: Int, channelType: Int, qualifiers: Int, samplePosition: [Int], lower: UInt32,
            upper: UInt32
        ) {
            (self.bitOffset, self.bitLength, self.channelType, self.qualifiers) = (
                bitOffset, bitLength, channelType, qualifiers
            )
            (self.samplePosition, self.lower, self.upper) = (samplePosition, lower, upper)
        }
    }

    public var identifierOK: Bool
    public var vkFormat: UInt32
    public var typeSize: UInt32
    public var pixelWidth: UInt32
    public var pixelHeight: UInt32
    public var pixelDepth: UInt32
    public var layerCount: UInt32
    public var faceCount: UInt32
    public var levelCount: UInt32
    public var supercompressionScheme: UInt32
    public var dfdByteOffset: UInt32
    public var dfdByteLength: UInt32
    public var kvdByteOffset: UInt32
    public var kvdByteLength: UInt32
    public var sgdByteOffset: UInt64
    public var sgdByteLength: UInt64
    public var levels: [Level]
    /// The DFD as 32-bit words, dfdTotalSize first.
    public var dfdWords: [UInt32]
    // The basic descriptor block's fields.
    public var vendorId: Int
    public var descriptorType: Int
    public var versionNumber: Int
    public var descriptorBlockSize: Int
    public var colorModel: Int
    public var colorPrimaries: Int
    public var transferFunction: Int
    public var flags: Int
    public var texelBlockDimension: [Int]  // stored values (dimension − 1)
    public var bytesPlane: [Int]
    public var samples: [Sample]
    /// Key/value pairs in file order; values without their terminating NUL.
    public var keyValues: [(key: String, value: [UInt8])]
    public var bytes: [UInt8]

    /// The stored bytes of level n (supercompressed if the file is).
    public func levelData(_ n: Int) -> [UInt8] {
        let l = levels[n]
        return Array(bytes[Int(l.byteOffset)..<Int(l.byteOffset + l.byteLength)])
    }

    public init?(_ data: [UInt8]) {
        guard data.count >= 80 else { return nil }
        bytes = data
        let r = LittleEndian(bytes: data)
        identifierOK = Array(data[0..<12]) == [0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A]
        vkFormat = r.u32(12)
        typeSize = r.u32(16)
        pixelWidth = r.u32(20)
        pixelHeight = r.u32(24)
        pixelDepth = r.u32(28)
        layerCount = r.u32(32)
        faceCount = r.u32(36)
        levelCount = r.u32(40)
        supercompressionScheme = r.u32(44)
        dfdByteOffset = r.u32(48)
        dfdByteLength = r.u32(52)
        kvdByteOffset = r.u32(56)
        kvdByteLength = r.u32(60)
        sgdByteOffset = r.u64(64)
        sgdByteLength = r.u64(72)
        let n = Int(max(1, levelCount))
        guard data.count >= 80 + 24 * n else { return nil }
        levels = (0..<n).map { k in
            Level(
                byteOffset: r.u64(80 + 24 * k), byteLength: r.u64(88 + 24 * k),
                uncompressedByteLength: r.u64(96 + 24 * k))
        }
        let dfdStart = Int(dfdByteOffset)
        guard dfdStart + Int(dfdByteLength) <= data.count, dfdByteLength >= 28 else { return nil }
        dfdWords = (0..<(Int(dfdByteLength) / 4)).map { r.u32(dfdStart + 4 * $0) }
        let b = dfdStart + 4  // the basic descriptor block
        let w0 = r.u32(b)
        vendorId = Int(w0 & 0x1FFFF)
        descriptorType = Int(w0 >> 17)
        let w1 = r.u32(b + 4)
        versionNumber = Int(w1 & 0xFFFF)
        descriptorBlockSize = Int(w1 >> 16)
        colorModel = Int(data[b + 8])
        colorPrimaries = Int(data[b + 9])
        transferFunction = Int(data[b + 10])
        flags = Int(data[b + 11])
        texelBlockDimension = (0..<4).map { Int(data[b + 12 + $0]) }
        bytesPlane = (0..<8).map { Int(data[b + 16 + $0]) }
        let sampleCount = (descriptorBlockSize - 24) / 16
        samples = (0..<sampleCount).map { k in
            let s = b + 24 + 16 * k
            return Sample(
                bitOffset: Int(r.u32(s) & 0xFFFF), bitLength: Int(data[s + 2]), channelType: Int(data[s + 3] & 0x0F),
                qualifiers: Int(data[s + 3] >> 4), samplePosition: (0..<4).map { Int(data[s + 4 + $0]) },
                lower: r.u32(s + 8), upper: r.u32(s + 12))
        }
        keyValues = []
        var at = Int(kvdByteOffset)
        let end = at + Int(kvdByteLength)
        while at + 4 <= end {
            let length = Int(r.u32(at))
            let pair = Array(data[(at + 4)..<(at + 4 + length)])
            guard let nul = pair.firstIndex(of: 0) else { return nil }
            var value = Array(pair[(nul + 1)...])
            if value.last == 0 { value.removeLast() }
            keyValues.append((String(decoding: pair[..<nul], as: UTF8.self), value))
            at += 4 + length
            at = (at + 3) / 4 * 4
        }
    }
}

public struct DDSFile {
    public var magicOK: Bool
    public var size: UInt32
    public var flags: UInt32
    public var height: UInt32
    public var width: UInt32
    public var pitchOrLinearSize: UInt32
    public var depth: UInt32
    public var mipMapCount: UInt32
    public var pixelFormatSize: UInt32
    public var pixelFormatFlags: UInt32
    public var fourCC: String
    public var caps: UInt32
    public var caps2: UInt32
    public var dxgiFormat: UInt32
    public var resourceDimension: UInt32
    public var miscFlag: UInt32
    public var arraySize: UInt32
    public var miscFlags2: UInt32
    /// Everything after the 148 header bytes.
    public var data: [UInt8]

    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 148 else { return nil }
        let r = LittleEndian(bytes: bytes)
        magicOK = Array(bytes[0..<4]) == Array("DDS ".utf8)
        size = r.u32(4)
        flags = r.u32(8)
        height = r.u32(12)
        width = r.u32(16)
        pitchOrLinearSize = r.u32(20)
        depth = r.u32(24)
        mipMapCount = r.u32(28)
        // dwReserved1[11] at 32…75; DDS_PIXELFORMAT at 76.
        pixelFormatSize = r.u32(76)
        pixelFormatFlags = r.u32(80)
        fourCC = String(decoding: bytes[84..<88], as: UTF8.self)
        caps = r.u32(108)
        caps2 = r.u32(112)
        // DDS_HEADER_DXT10 at 128.
        dxgiFormat = r.u32(128)
        resourceDimension = r.u32(132)
        miscFlag = r.u32(136)
        arraySize = r.u32(140)
        miscFlags2 = r.u32(144)
        data = Array(bytes[148...])
    }
}
