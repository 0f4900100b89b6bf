import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeCodecs
@testable import TexPipeFormats
@testable import TexPipeParameters
@testable import TexPipePixels

@Suite("atomic writes")
struct AtomicWriterTests {
    @Test func writesCompleteFilesAndLeavesNoTemporaries() throws {
        let t = TempDir()
        let path = t.path + "/a/b/out.png"
        try AtomicWriter.write([1, 2, 3], to: path)
        try AtomicWriter.write([4, 5], to: path)  // replaces
        #expect(FileManager.default.contents(atPath: path) == Data([4, 5]))
        let names = try FileManager.default.contentsOfDirectory(atPath: t.path + "/a/b")
        #expect(names == ["out.png"])
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    /// Folders are created once per process; one removed since (a long `watch`) is created again.
    @Test func aFolderRemovedBetweenWritesIsCreatedAgain() throws {
        let t = TempDir()
        let path = t.path + "/gone/deeper/out.png"
        try AtomicWriter.write([1], to: path)
        try FileManager.default.removeItem(atPath: t.path + "/gone")
        try AtomicWriter.write([2], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data([2]))
    }

    @Test func unwritableFolderIsAnErrorNotACrash() {
        #expect(throws: AtomicWriter.WriteError.self) { try AtomicWriter.write([1], to: "/proc/texpipe-nope/x.png") }
    }
}
