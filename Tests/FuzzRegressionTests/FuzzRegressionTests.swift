import Foundation
import FuzzChecks
import TestSupport
import Testing

/// One input for a fuzz target: a crash the fuzzer found (kept in `Inputs/<target>/`), or a
/// sample file in that target's format.
struct FuzzInput: Sendable, CustomStringConvertible {
    var target: FuzzTarget
    var url: URL
    var description: String { "\(target.rawValue): \(url.lastPathComponent)" }
}

/// Every saved fuzzer finding, by target folder.
private let savedFindings: [FuzzInput] = {
    let root = TestPaths.repositoryRoot.appendingPathComponent("Tests/FuzzRegressionTests/Inputs")
    return FuzzTarget.allCases.flatMap { target -> [FuzzInput] in
        let folder = root.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { FuzzInput(target: target, url: folder.appendingPathComponent($0)) }
    }
}()

/// The fuzz seeds: the vCard, jCard (`Samples/formats/*.json`) and xCard files of `Samples/`,
/// the JSON Schemas of `Schemas/`, and every file of the shared corpus, by the format INDEX.tsv
/// gives it.
private let seeds: [FuzzInput] = {
    let enumerator = FileManager.default.enumerator(at: TestPaths.samples, includingPropertiesForKeys: nil)
    var inputs: [FuzzInput] = []
    while let url = enumerator?.nextObject() as? URL {
        switch url.pathExtension {
        case "vcf": inputs.append(FuzzInput(target: .vcard, url: url))
        case "json" where url.path.contains("/formats/"): inputs.append(FuzzInput(target: .jcard, url: url))
        case "xml": inputs.append(FuzzInput(target: .xcard, url: url))
        default: break
        }
    }
    // The JSON Schemas, for the JSON target.
    let schemas = TestPaths.repositoryRoot.appendingPathComponent("Schemas")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: schemas.path)) ?? [] where name.hasSuffix(".json") {
        inputs.append(FuzzInput(target: .json, url: schemas.appendingPathComponent(name)))
    }
    for entry in CorpusIndex.entries {
        let target: FuzzTarget = switch entry.version {
        case "jcard": .jcard
        case "xcard": .xcard
        default: .vcard
        }
        inputs.append(FuzzInput(target: target, url: entry.url))
    }
    return inputs.sorted { $0.url.path < $1.url.path }
}()

@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    @Test(arguments: savedFindings)
    func aSavedFindingNoLongerBreaksAnInvariant(_ input: FuzzInput) throws {
        let bytes = try [UInt8](Data(contentsOf: input.url))
        #expect(throws: Never.self) { try input.target.check(bytes) }
    }

    @Test(arguments: seeds)
    func everySeedHoldsItsTargetsInvariants(_ input: FuzzInput) throws {
        let bytes = try [UInt8](Data(contentsOf: input.url))
        #expect(throws: Never.self) { try input.target.check(bytes) }
    }

    @Test func thereAreSeedsForEachFormatTarget() {
        #expect(Set(seeds.map(\.target)).isSuperset(of: [.vcard, .jcard, .xcard, .json]))
    }
}
