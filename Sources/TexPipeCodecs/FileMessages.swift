internal import TexPipePixels

/// The wording of writing files (`AtomicWriter`), in one place (STYLE 10).
enum FileMessage {
    static func cannotCreateFolder(_ dir: String, _ why: String) -> String {
        "cannot create folder \(PathText.display(dir)): \(why)"
    }
    static func cannotWriteIn(_ dir: String, _ why: String) -> String {
        "cannot write in \(PathText.display(dir)): \(why)"
    }
    static func cannotWrite(_ path: String, _ why: String) -> String {
        "cannot write \(PathText.display(path)): \(why)"
    }
    static func cannotRename(_ path: String, _ why: String) -> String {
        "cannot rename into \(PathText.display(path)): \(why)"
    }
    static let stopped = "stopped"
}
