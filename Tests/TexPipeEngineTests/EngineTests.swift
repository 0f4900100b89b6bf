import Foundation
import Synchronization
import Testing
import TexPipePlanTestSupport
import TexPipeTestSupport

@testable import TexPipeCache
@testable import TexPipeCodecs
@testable import TexPipeEngine
@testable import TexPipeFormats
@testable import TexPipeManifest
@testable import TexPipeMeasures
@testable import TexPipePixels
@testable import TexPipePlan
@testable import TexPipeStages
@testable import TexPipeTextures

@Suite("engine")
struct EngineTests {
    /// A 16-bit input stays 16-bit through the chain and into its output unless png.depth says otherwise.
    @Test func sixteenBitSurvivesTheChain() throws {
        let t = TempDir()
        var samples: [Int] = []
        for i in 0..<12 {
            let a = i % 2 == 0 ? 65535 : 1000
            samples += [i * 5000, 65535 - i * 5000, 257, a]
        }
        t.write(
            "in/deep.png", ReferencePNG.encode(.init(width: 4, height: 3, colorType: 6, bitDepth: 16, samples: samples))
        )
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "deep", "inputs": ["in/*.png"], "output": "{file}.png",
                "stages": [ { "stage": "premultiply" }, { "stage": "flip", "axis": "vertical" } ] },
              { "name": "shallow", "inputs": ["in/*.png"], "output": "{file}_8.png", "png": { "depth": 8 },
                "stages": [ { "stage": "premultiply" } ] } ] }
            """
        ).get()
        let results = Runner.run(plan, RunOptions(jobs: 2))
        #expect(results.allSatisfy { $0.status == .ok })
        let out = try ImageDecoder.decode(Array(FileManager.default.contents(atPath: t.path + "/out/deep.png")!))
        #expect(out.depth == 16)
        // Row 0 of the output is row 2 of the input, premultiplied at 16 bits.
        let p: [Int] = Array(samples[(8 * 4)..<(9 * 4)])
        let expected: [Int] = p[0..<3].map { (c: Int) -> Int in roundHalfUp(Double(c * p[3]) / 65535) } + [p[3]]
        #expect(out.pixel(0, 0) == expected)
        let eight = try ImageDecoder.decode(Array(FileManager.default.contents(atPath: t.path + "/out/deep_8.png")!))
        #expect(eight.depth == 8)
    }

    @Test func resultsComeInPlanOrderWithFailuresInPlace() throws {
        let t = TempDir()
        for i in 0..<9 { t.png("in/\(i).png") }
        t.write("in/4.png", text: "garbage")
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["in/*.png"], "output": "{file}.png", "stages": [ { "stage": "pad", "all": 1 } ] } ] }
            """
        ).get()
        let order = Mutex<[Int]>([])
        let results = Runner.run(
            plan, RunOptions(jobs: 4), finished: { job, _ in order.withLock { $0.append(job.index) } })
        #expect(order.withLock { $0 } == Array(0..<9))
        #expect(results.map(\.status) == (0..<9).map { $0 == 4 ? .failed : .ok })
        #expect(results[4].error == "\(t.path)/in/4.png: not a PNG file (bad signature)")
        #expect(results[5].written.map(\.relative) == ["5.png"])
    }

    /// Jobs start largest input (in pixels) first (so no core waits out a long tail), and results still come
    /// in plan order — the ordering test above runs with that scheduling.
    @Test func largestInputsStartFirst() throws {
        let t = TempDir()
        // Work is pixels, read from the headers: b and d (300 px) tie, then c (40), then a (10).
        for (name, width) in [("a", 10), ("b", 300), ("c", 40), ("d", 300)] {
            t.write("in/\(name).png", try ImageEncoder.png(Image(width: width, height: 1, depth: 8)))
        }
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["in/*.png"], "output": "{file}.png", "stages": [] } ] }
            """
        ).get()
        let names: [String] = plan.jobs.map { (job: Job) -> String in String(job.input.display.suffix(5)) }
        #expect(names == ["a.png", "b.png", "c.png", "d.png"])
        #expect(Runner.largestFirst(plan.jobs) == [1, 3, 2, 0])
    }

    /// Among jobs of one size, workers taking jobs in turn write into different output folders:
    /// the first job of each folder, then the second of each, and so on (in plan order within).
    @Test func jobsOfOneSizeTakeTheirOutputFoldersInTurn() throws {
        let t = TempDir()
        for name in ["x/1", "x/2", "x/3", "y/1", "y/2", "z/1"] {
            t.write("in/\(name).png", try ImageEncoder.png(Image(width: 4, height: 4, depth: 8)))
        }
        // A larger input still goes first.
        t.write("in/z/big.png", try ImageEncoder.png(Image(width: 8, height: 8, depth: 8)))
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "p", "inputs": ["in/**/*.png"], "output": "{path}/{file}.png", "stages": [] } ] }
            """
        ).get()
        let names = plan.jobs.map { String($0.input.display.split(separator: "/").suffix(2).joined(separator: "/")) }
        #expect(names == ["x/1.png", "x/2.png", "x/3.png", "y/1.png", "y/2.png", "z/1.png", "z/big.png"])
        #expect(
            Runner.largestFirst(plan.jobs).map { names[$0] } == [
                "z/big.png", "x/1.png", "y/1.png", "z/1.png", "x/2.png", "y/2.png", "x/3.png",
            ])
    }

    #if os(Linux)
        /// The CLI's allocator policies reach glibc (the shim's mallopt calls succeed); the test
        /// process is left with the one it runs without a limit.
        @Test func allocatorPolicyIsAccepted() {
            #expect(Allocator.giveBackLargeBuffers())
            #expect(Allocator.keepLargeBuffersForReuse())
        }
    #endif

    @Test func jpegWithAlphaNeedsFlatten() throws {
        let t = TempDir()
        t.write(
            "in/a.png",
            ReferencePNG.encode(
                .init(width: 2, height: 1, colorType: 6, bitDepth: 8, samples: [1, 2, 3, 255, 4, 5, 6, 0])))
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "no", "inputs": ["in/*.png"], "output": "no/{file}.jpg", "stages": [] },
              { "name": "yes", "inputs": ["in/*.png"], "output": "yes/{file}.jpg", "jpeg": { "flatten": "white", "quality": 100 }, "stages": [] } ] }
            """
        ).get()
        let results = Runner.run(plan, RunOptions(jobs: 1))
        #expect(results[0].status == .failed)
        #expect(
            results[0].error?.hasSuffix(
                "no/a.jpg: JPEG has no alpha but the image has pixels with alpha below max; set \"jpeg\": {\"flatten\": …} or write a .png"
            ) == true)
        #expect(results[1].status == .ok)
        let flat = try ImageDecoder.decode(Array(FileManager.default.contents(atPath: t.path + "/out/yes/a.jpg")!))
        #expect(flat.pixel(1, 0)[0] >= 250, "the transparent pixel became white")
    }

    /// The engine reads and decodes a file that many jobs' stages read (a shared mask, a layer
    /// image) once per run, whatever the number of jobs or workers; the plan reads its header once.
    @Test func aSharedLayerFileIsReadOncePerRun() throws {
        let t = TempDir()
        for i in 0..<6 { t.png("in/\(i).png", width: 4, height: 3) }
        t.png("mask.png", width: 4, height: 3)
        t.png("layer.png", width: 4, height: 3)
        let plan = try t.plan(
            """
            { "version": 1, "output": "out", "pipelines": [
              { "name": "kits", "inputs": ["in/*.png"], "variants": [{"name": "a"}, {"name": "b"}],
                "output": "{variant}/{file}.png", "stages": [
                { "stage": "composite", "layers": [
                  { "color": "#ff0000", "mask": "mask.png" }, { "image": "layer.png", "mask": "mask.png" } ] } ] } ] }
            """
        ).get()
        #expect(plan.jobs.count == 12)
        #expect(plan.jobs[0].reads.files == [t.path + "/in/0.png", t.path + "/mask.png", t.path + "/layer.png"])
        let loader = ResourceLoader()
        let results = Runner.run(plan, RunOptions(jobs: 2), loader: loader)
        #expect(results.allSatisfy { $0.status == .ok })
        #expect(loader.readCount(t.path + "/mask.png") == 1)
        #expect(loader.readCount(t.path + "/layer.png") == 1)
        // Over the loader's budget nothing is kept, and the jobs still get the same bytes.
        let tight = ResourceLoader(budget: 0)
        let again = Runner.run(plan, RunOptions(jobs: 2, force: true), loader: tight)
        #expect(again.map(\.recorded) == results.map(\.recorded))
        #expect(tight.readCount(t.path + "/mask.png") > 1)
    }

    @Test func hexDigestsAreSHA256AsWritten() {
        #expect(Cache.sha256(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Cache.sha256([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        // FIPS 180-2's two-block message and its million a's (one call, many blocks).
        #expect(
            Cache.sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Cache.sha256([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func temporaryNamesCarryTheirWritersPid() {
        #expect(AtomicWriter.ownerPid(ofTemporary: ".a.png.tmp-4242-Ab3dE9") == 4242)
        #expect(AtomicWriter.ownerPid(ofTemporary: ".a.tmp-x.png.tmp-17-zzzzzz") == 17)
        #expect(AtomicWriter.ownerPid(ofTemporary: ".a.png.tmp-Ab3dE9") == nil)
        #expect(AtomicWriter.ownerPid(ofTemporary: "a.png.tmp-12-Ab3dE9") == nil)
        #expect(AtomicWriter.ownerPid(ofTemporary: ".a.png.tmp-12-Ab3") == nil)
    }
}
