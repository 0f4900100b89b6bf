import Foundation
import Testing
import TexPipeTestSupport

@testable import TexPipeAtlas

/// The packer against docs/atlases.md's geometry, checked from the placements alone: every sprite once,
/// inside the page less its border, extruded rectangles at least `padding` apart, page sizes under
/// the rule and minimal for what is on them; and its tightness against PyPI's rectpack.
@Suite("atlas packer")
struct AtlasPackerTests {
    typealias Size = Packer.Size

    /// The five sets of the tightness comparison (the same seeds as Benchmarks/runs/atlas.py's shapes).
    static func sets() -> [(name: String, sizes: [Size])] {
        var r = SeededRandom(seed: 15)
        func s(_ w: Int, _ h: Int) -> Size { Size(width: w, height: h) }
        return [
            ("uniform", Array(repeating: s(32, 32), count: 150)),
            ("mixed", (0..<200).map { _ in s(r.int(8...128), r.int(8...128)) }),
            (
                "long thin",
                (0..<120).map { i in i % 2 == 1 ? s(r.int(4...16), r.int(64...256)) : s(r.int(64...256), r.int(4...16))
                }
            ),
            ("many tiny", (0..<400).map { _ in s(r.int(2...12), r.int(2...12)) }),
            ("a few huge", (0..<6).map { _ in s(r.int(200...700), r.int(200...700)) }),
        ]
    }

    /// Every geometric promise of a packing, from its placements alone.
    static func checkGeometry(_ pages: [Packer.Page], _ sizes: [Size], _ s: AtlasSettings) {
        var seen = [Int](repeating: 0, count: sizes.count)
        for page in pages {
            // Size rule and limit.
            for side in [page.width, page.height] {
                switch s.size {
                case .pot: #expect(side & (side - 1) == 0, "\(side) is not a power of two")
                case .multipleOf4: #expect(side % 4 == 0)
                case .any: break
                }
            }
            #expect(page.width <= s.pageLimit.width && page.height <= s.pageLimit.height)
            // Extruded rectangles: x0, y0, x1, y1 (exclusive).
            let rects = page.placements.map { p -> (Int, Int, Int, Int) in
                seen[p.sprite] += 1
                let size = sizes[p.sprite]
                let (w, h) = p.rotated ? (size.height, size.width) : (size.width, size.height)
                #expect(!p.rotated || s.rotate)
                return (p.x - s.extrude, p.y - s.extrude, p.x + w + s.extrude, p.y + h + s.extrude)
            }
            for r in rects {
                #expect(r.0 >= s.border && r.1 >= s.border, "inside the border")
                #expect(r.2 <= page.width - s.border && r.3 <= page.height - s.border, "inside the border")
            }
            for i in rects.indices {
                for j in rects.indices where j > i {
                    let a = rects[i]
                    let b = rects[j]
                    // Separated by at least `padding` along x or along y.
                    let apart =
                        a.2 + s.padding <= b.0 || b.2 + s.padding <= a.0 || a.3 + s.padding <= b.1
                        || b.3 + s.padding <= a.1
                    #expect(apart, "placements \(i) and \(j) closer than the padding")
                }
            }
            // Minimal for what is on it: one rule step smaller on either side loses a rectangle.
            let right = (rects.map(\.2).max() ?? 0) + s.border
            let bottom = (rects.map(\.3).max() ?? 0) + s.border
            #expect(right <= page.width && bottom <= page.height)
            #expect(s.size.step(below: page.width) < right || page.width == s.size.roundUp(1))
            #expect(s.size.step(below: page.height) < bottom || page.height == s.size.roundUp(1))
        }
        #expect(seen.allSatisfy { $0 == 1 }, "every sprite exactly once")
    }

    @Test(arguments: [AtlasSettings.SizeRule.pot, .any, .multipleOf4])
    func geometryHoldsOnEverySet(_ rule: AtlasSettings.SizeRule) throws {
        // The width search under any / multiple-of-4 is the slow part in a debug build: 60 of each set.
        for (name, all) in Self.sets() {
            let sizes = rule == .pot ? all : Array(all.prefix(60))
            for (padding, border, extrude, rotate) in [(2, 0, 0, false), (0, 3, 1, true), (5, 1, 2, false)] {
                let s = AtlasSettings(
                    maxWidth: 4096, maxHeight: 4096, size: rule, padding: padding, border: border, extrude: extrude,
                    rotate: rotate)
                let pages = try Packer(s).pack(sizes).get()
                #expect(pages.count == 1, "\(name) fits one 4096² page")
                Self.checkGeometry(pages, sizes, s)
            }
        }
    }

    @Test func severalPagesWhenOneCannotHoldThem() throws {
        var r = SeededRandom(seed: 3)
        let sizes = (0..<300).map { _ in Size(width: r.int(20...90), height: r.int(20...90)) }
        let s = AtlasSettings(maxWidth: 256, maxHeight: 256, size: .pot, padding: 1, extrude: 1)
        let pages = try Packer(s).pack(sizes).get()
        #expect(pages.count > 1)
        Self.checkGeometry(pages, sizes, s)
        // Not one page more than the area needs, give or take what the shapes waste.
        let area = sizes.reduce(0) { $0 + ($1.width + 3) * ($1.height + 3) }
        #expect(pages.count <= area / (256 * 256) * 3 / 2 + 2)
    }

    @Test func aSpriteLargerThanThePageIsReportedWithBothSizes() {
        let s = AtlasSettings(maxWidth: 64, maxHeight: 64, padding: 2, border: 2, extrude: 1)
        let result = Packer(s).pack([Size(width: 10, height: 10), Size(width: 60, height: 20)])
        #expect(
            result
                == .failure(
                    .tooLarge(
                        sprite: 1, size: Size(width: 60, height: 20), needs: Size(width: 66, height: 26),
                        page: Size(width: 64, height: 64))))
        // Turned, it would fit only if it could turn: a 20×60 sprite on a 64×32 page.
        let wide = AtlasSettings(maxWidth: 64, maxHeight: 32, size: .any, padding: 0, rotate: true)
        let turned = try? Packer(wide).pack([Size(width: 20, height: 60)]).get()
        #expect(turned?.first?.placements.first?.rotated == true)
    }

    @Test func theSameInputsGiveTheSameLayout() throws {
        let sizes = Array(Self.sets()[1].sizes.prefix(80))
        let s = AtlasSettings(size: .any, padding: 2, rotate: true)
        #expect(try Packer(s).pack(sizes).get() == Packer(s).pack(sizes).get())
    }

    @Test func handCheckedSmallCases() throws {
        // One 30×10 sprite, padding 2, no border: the page is the sprite rounded up to the rule.
        let pot = try Packer(AtlasSettings(size: .pot)).pack([Size(width: 30, height: 10)]).get()
        #expect(pot == [Packer.Page(width: 32, height: 16, placements: [.init(sprite: 0, x: 0, y: 0, rotated: false)])])
        // Four 16×16 with padding 2 under `any`: 34 × 34 (2 × 2) or 70 × 16 (a row of four) —
        // the row is smaller: 1120 < 1156.
        let four = try Packer(AtlasSettings(size: .any, padding: 2)).pack(
            Array(repeating: Size(width: 16, height: 16), count: 4)
        ).get()
        #expect(four.count == 1 && four[0].width * four[0].height == 70 * 16)
        // Extrusion 1 and border 2 around a 1×1: 1 + 2 + 4 = 7 → 8 under pot.
        let one = try Packer(AtlasSettings(size: .pot, border: 2, extrude: 1)).pack([Size(width: 1, height: 1)]).get()
        #expect(one == [Packer.Page(width: 8, height: 8, placements: [.init(sprite: 0, x: 3, y: 3, rotated: false)])])
    }

    /// docs/atlases.md: within 5 % of the smallest page rectpack's MaxRects (BSSF, BAF, BL) reach on the
    /// same padded rectangles under the same rule (Tests/TexPipeTestSupport/rectpack_best.py
    /// searches it).
    @Test(Reference.needs(Python.has("rectpack"), "python3 rectpack"))
    func atMostFivePercentAboveRectpacksBestPage() throws {
        let script = Python.script("rectpack_best.py")
        let t = TempDir()
        // Powers of two for all five; any and multiple-of-4 where rectpack's own width search
        // finishes in seconds (on 200 sprites it takes minutes in Python).
        var cases = Self.sets().map { ($0.name, $0.sizes, AtlasSettings.SizeRule.pot) }
        cases.append(("a few huge", Self.sets()[4].sizes, .any))
        cases.append(("a few huge", Self.sets()[4].sizes, .multipleOf4))
        cases.append(("uniform (40)", Array(Self.sets()[0].sizes.prefix(40)), .any))
        for (name, sizes, rule) in cases {
            let s = AtlasSettings(maxWidth: 4096, maxHeight: 4096, size: rule, padding: 2)
            let pages = try Packer(s).pack(sizes).get()
            let ours = pages[0].width * pages[0].height
            let job: [String: Any] = [
                "sizes": sizes.map { [$0.width, $0.height] }, "padding": 2, "rule": rule.rawValue, "maxSize": 4096,
                "rotate": false,
            ]
            t.write("job.json", Array(try JSONSerialization.data(withJSONObject: job)))
            let out = try Python.run(
                "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')", script,
                t.path + "/job.json")
            let reference = try #require(try JSONSerialization.jsonObject(with: Data(out)) as? [String: Any])
            let theirs = try #require(reference["area"] as? Int)
            #expect(Double(ours) <= 1.05 * Double(theirs), "\(name) \(rule.rawValue): \(ours) vs rectpack \(theirs)")
        }
    }
}
