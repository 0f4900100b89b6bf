import ArgumentParser
import Foundation
import TexPipe

/// `texpipe pack-rects FILE.json`: the atlas packer alone on rectangles (no pixels), for the
/// benchmark and the tightness comparison with rectpack. Hidden from help: a measuring tool.
struct PackRects: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack-rects",
        abstract: "Pack rectangles ({\"sizes\": [[w, h], …], \"atlas\": {…}}) and print the pages as JSON.",
        shouldDisplay: false)

    @Argument(help: "A JSON file: sizes and the atlas settings.") var file: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file),
            let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let sizes = root["sizes"] as? [[Int]]
        else { throw ValidationError("\(file): expected {\"sizes\": [[w, h], …]}") }
        let a = root["atlas"] as? [String: Any] ?? [:]
        let max = (a["maxSize"] as? Int) ?? 2048
        let settings = AtlasSettings(
            maxWidth: max, maxHeight: max,
            size: AtlasSettings.SizeRule(rawValue: (a["size"] as? String) ?? "pot") ?? .pot,
            padding: (a["padding"] as? Int) ?? 0, border: (a["border"] as? Int) ?? 0,
            extrude: (a["extrude"] as? Int) ?? 0, rotate: (a["rotate"] as? Bool) ?? false)
        let rects = sizes.map { Packer.Size(width: $0[0], height: $0[1]) }
        let t = DispatchTime.now().uptimeNanoseconds
        let result = Packer(settings).pack(rects)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
        guard case .success(let pages) = result else { throw ValidationError("a rectangle is larger than a page") }
        let out: [String: Any] = [
            "seconds": seconds,
            "pages": pages.map { p in
                [
                    "w": p.width, "h": p.height,
                    "placements": p.placements.map { [$0.sprite, $0.x, $0.y, $0.rotated ? 1 : 0] },
                ] as [String: Any]
            },
        ]
        FileHandle.standardOutput.write(try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]))
    }
}
