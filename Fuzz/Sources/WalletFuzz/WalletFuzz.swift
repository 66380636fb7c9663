import FuzzTargets

#if canImport(Glibc)
import Glibc
#endif

// The libFuzzer entry points. Every input goes to the target OW_FUZZ_TARGET names (scripts/fuzz
// sets it; `FuzzTargets.all` lists them). A finding is a crash: a trap in a decoder, an ASan
// report, or a broken round trip or invariant, which the targets turn into `fatalError`.

/// libFuzzer calls this once before fuzzing. With OW_FUZZ_EMIT_SEEDS=<dir> the binary writes the
/// target's seed corpus (derived from docs/vectors) there and exits: scripts/fuzz seeds this way.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> Int32 {
    guard let directory = getenv("OW_FUZZ_EMIT_SEEDS").map({ String(cString: $0) }) else { return 0 }
    do {
        let count = try FuzzTargets.writeSeeds(into: directory)
        print("wrote \(count) seeds to \(directory)")
        exit(0)
    } catch {
        print("seeding failed: \(error)")
        exit(2)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTargets.selected(bytes)
    return 0
}
