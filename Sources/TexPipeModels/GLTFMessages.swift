/// The wording of glTF model problems, in one place (STYLE 10). Each follows the JSON path or
/// GLB part it is about (`bufferViews[3]: …`).
enum GLTFMessage {
    static func shortGLB(_ n: Int) -> String { "\(n) bytes: too short for a GLB header and its JSON chunk" }
    static func glbVersion(_ v: Int) -> String { "version \(v); texpipe reads GLB version 2" }
    static func glbLength(_ said: Int, file: Int) -> String { "the header says \(said) bytes; the file has \(file)" }
    static let chunkHeaderPastEnd = "its header lies past the end of the file"
    static func chunkPastEnd(_ n: Int) -> String { "its \(n) bytes lie past the end of the file" }
    static func firstChunkNotJSON(_ type: UInt32) -> String {
        "the first chunk must be JSON (0x4E4F534A); it is 0x" + String(type, radix: 16, uppercase: true)
    }
    static func misplacedChunk(_ json: Bool) -> String {
        json ? "a second JSON chunk" : "a BIN chunk must be the second chunk"
    }
    static let noJSONChunk = "no JSON chunk"
    static func notJSON(_ why: String) -> String { "not JSON: \(why)" }
    static let rootNotObject = "the model's JSON is not an object"
    static let noAssetVersion = "missing asset.version (a glTF 2.0 model says \"2.0\")"
    static func notVersion2(_ v: String) -> String { "\"\(v)\": texpipe reads glTF 2.x" }
    static let notObject = "expected an object"
    static func notIndex(_ found: String) -> String { "expected an index, found \(found)" }
    static func outOfRange(_ i: Int, _ target: String, count: Int) -> String {
        "index \(i) is out of range (the model has \(count) \(target))"
    }
    static func missing(_ key: String) -> String { "missing \"\(key)\"" }
    static func notLength(_ found: String) -> String { "expected a byte count, found \(found)" }
    static let bufferWithoutURI = "a buffer without a uri (only a GLB's first buffer is its BIN chunk)"
    static func viewPastBuffer(_ from: Int, _ to: Int, buffer: Int, _ size: Int) -> String {
        "bytes \(from)…\(to) lie past the end of buffers[\(buffer)] (\(size) bytes)"
    }
    static func accessorPastView(_ end: Int, view: Int, _ size: Int) -> String {
        "reads up to byte \(end) of bufferViews[\(view)], which has \(size)"
    }
    static let imageWithoutSource = "an image needs a uri or a bufferView"
    static let meshopt =
        "EXT_meshopt_compression addresses buffers by byte offset; texpipe cannot re-lay them (decompress the model first)"
    static let badDataURI = "a data: URI that is not base64"
    static func unsupportedURI(_ uri: String) -> String {
        "\"\(uri)\": texpipe reads files relative to the model and data: URIs"
    }
    static let noBINChunk = "the GLB has no BIN chunk for its first buffer"
    static func shortBuffer(_ declared: Int, _ found: Int) -> String {
        "byteLength is \(declared) but the buffer has \(found) bytes"
    }
    static func cannotRead(_ uri: String, _ why: String) -> String { "\(uri): \(why)" }
    static func sharedView(_ other: Int) -> String {
        "an image's bytes overlap bufferViews[\(other)]; texpipe cannot replace the image alone"
    }
}
