import FuzzChecks

#if CARDSYNC_LIBFUZZER
// Built by `.ci/fuzz.sh` with `-sanitize=fuzzer -D CARDSYNC_LIBFUZZER`: libFuzzer provides `main`
// and calls these. The target is chosen with CARDSYNC_FUZZ_TARGET (vcard, jcard, xcard, journal,
// json, couch-body).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

nonisolated(unsafe) private var selectedTarget: FuzzTarget = .vcard

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let name = getenv("CARDSYNC_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        let message = "set CARDSYNC_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
    selectedTarget = target
    return 0
}

/// libFuzzer's driver, called from our own `main`: SwiftPM links an executable's entry point as
/// `cardsync_fuzz_main`, so libFuzzer's `main` is not the one that runs.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("cardsync_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try selectedTarget.check(input)
    } catch {
        fatalError("\(selectedTarget.rawValue): \(error)")
    }
    return 0
}
#else
import Foundation

/// Without libFuzzer: replays files through a target, e.g. a crash libFuzzer saved.
///
///     cardsync-fuzz vcard crash-1234 Tests/FuzzRegressions/vcard/*
@main
enum FuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data(
                "usage: cardsync-fuzz TARGET FILE...  (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))\n".utf8))
            exit(64)
        }
        var failures = 0
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("\(path): cannot read\n".utf8))
                failures += 1
                continue
            }
            do {
                try target.check(Array(data))
            } catch {
                FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
                failures += 1
            }
        }
        exit(failures == 0 ? 0 : 1)
    }
}
#endif
