internal import Foundation
internal import TexPipeFuzzing

// Built with `-sanitize=fuzzer -DFUZZING` (Scripts/fuzz), libFuzzer drives this entry point
// and brings its own main; the target is TEXPIPE_FUZZ_TARGET. Built plainly, `texpipe-fuzz
// TARGET FILE...` replays inputs and prints each answer (how a finding is looked at).
let fuzzTarget = ProcessInfo.processInfo.environment["TEXPIPE_FUZZ_TARGET"]
    .flatMap(FuzzTarget.init(rawValue:))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let fuzzTarget else {
        fatalError("set TEXPIPE_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue))")
    }
    _ = fuzzTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#if FUZZING
    // SwiftPM links an executable's entry point as `texpipe_fuzz_main` and points `main` at it;
    // here it hands the command line to libFuzzer's driver.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    @_cdecl("texpipe_fuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var vector = argv
        return runDriver(&count, &vector) { data, size in fuzzOne(data, size) }
    }
#else
    @main
    struct Replay {
        static func main() {
            let args = CommandLine.arguments.dropFirst()
            guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
                print("usage: texpipe-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE...")
                exit(2)
            }
            for file in args.dropFirst() {
                let bytes = FileManager.default.contents(atPath: file).map { Array($0) } ?? []
                print("\(file): \(target.run(bytes))")
            }
        }
    }
#endif
