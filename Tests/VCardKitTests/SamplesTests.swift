import Foundation
import Testing
import TestSupport
@testable import VCardKit

/// Every vCard file in `Samples/` reads as its name promises (`broken-*` files with an error
/// naming the line, every other file without errors), writes back byte for byte, and converts
/// between versions without loss.
@Suite struct SamplesTests {
    static let files: [String] = {
        let root = TestPaths.samples.resolvingSymlinksInPath()
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return enumerator.compactMap { ($0 as? URL)?.path }
            .filter { $0.hasSuffix(".vcf") }
            .map { String($0.dropFirst(root.path.count + 1)) }
            .sorted()
    }()

    @Test func samplesExist() {
        #expect(Self.files.count >= 6)
    }

    @Test(arguments: files)
    func readsAsItsNamePromises(_ file: String) throws {
        let bytes = try Array(Data(contentsOf: TestPaths.samples.appendingPathComponent(file)))
        let result = try VCardReader.read(bytes, sourceName: file)
        #expect(!result.cards.isEmpty)
        if (file as NSString).lastPathComponent.hasPrefix("broken-") {
            #expect(result.diagnostics.contains { $0.severity == .error && $0.location.line > 0 })
        } else {
            #expect(!result.hasErrors, "\(result.diagnostics.filter { $0.severity == .error })")
        }
    }

    @Test(arguments: files)
    func writesBackByteForByte(_ file: String) throws {
        try RoundTripChecks.writesBackByteForByte(Array(Data(contentsOf: TestPaths.samples.appendingPathComponent(file))), sourceName: file)
    }

    @Test(arguments: files)
    func convertsWithoutLoss(_ file: String) throws {
        try RoundTripChecks.convertsWithoutLoss(Array(Data(contentsOf: TestPaths.samples.appendingPathComponent(file))), sourceName: file)
    }

    @Test func readsTheTrickySamplesValues() throws {
        func card(_ name: String) throws -> VCard {
            try #require(try VCardReader.read(Array(Data(contentsOf: TestPaths.samples.appendingPathComponent("tricky/\(name)")))).cards.first)
        }
        let qp = try card("vcard21-quoted-printable.vcf")
        #expect(qp.formattedName == "María González")
        #expect(qp.addresses.first?.street == ["Calle de Alcalá, 45\r\nPiso 3"] || qp.addresses.first?.street == ["Calle de Alcalá, 45\nPiso 3"])
        #expect(qp.addresses.first?.country == ["España"])
        #expect(qp.notes == ["Soft line breaks continue without a leading space."])
        #expect(qp.photo?.binaryData?.starts(with: Array("GIF89a".utf8)) == true)
        #expect(try card("vcard21-shift-jis.vcf").formattedName == "田中太郎")
        let apple = try card("apple-grouped-properties.vcf")
        #expect(apple.emails.first?.group == "item1")
        #expect(apple.urls == ["https\\://example.com/johnny"])
        let ada = try card("vcard40-rfc6868-and-folding.vcf")
        #expect(ada.addresses.first?.label == "12 St James's Square\nLondon, England\n\"The Blue House\"")
        #expect(ada.notes.first?.contains("café was split") == true)
        #expect(ada.birthday == VCardDateAndOrTime(month: 12, day: 10))
        #expect(ada.categories == ["Mathematics", "Computing, early", "Poetry"])
        #expect(try card("vcard30-utf16le-bom.vcf").formattedName == "Jan Łukasiewicz 😀")
    }
}
